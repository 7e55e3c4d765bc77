// A 2026-07-28 caller's `inputResponses`, judged before any of them reaches the upstream. They
// arrive in the caller's retry (admitted by the front under the same byte and depth limits as
// any message) and answer requests a 2025-era upstream made of its client; each is the bare
// result of the request it answers, shaped as the revision shapes it. What the upstream receives
// is rebuilt from the fields the revision defines, never the caller's object as it came, so an
// extra key cannot reach a server that would read it.

/** The methods whose requests a caller can be asked in an `input_required` result. */
export const INPUT_REQUEST_METHODS: ReadonlySet<string> = new Set([
  'elicitation/create',
  'sampling/createMessage',
  'roots/list',
])

const ELICIT_ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'decline', 'cancel'])
const ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant'])

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** An elicitation's field value: a string, a finite number, a boolean or a list of strings. */
function isElicitValue(value: unknown): boolean {
  if (typeof value === 'string' || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value)
  return Array.isArray(value) && value.every((v) => typeof v === 'string')
}

/** A sampling content block: an object naming its `type`. */
function isContentBlock(value: unknown): boolean {
  return isObject(value) && typeof value.type === 'string'
}

/**
 * The caller's answer `value` to a carried request of `method`, rebuilt as the upstream will
 * receive it, or `undefined` when it is not the shape the 2026-07-28 revision gives that
 * answer: `elicitation/create` → `{ action: 'accept' | 'decline' | 'cancel', content? }` whose
 * content values are strings, finite numbers, booleans or lists of strings;
 * `sampling/createMessage` → `{ role, content, model, stopReason? }` with a content block or a
 * list of them; `roots/list` → `{ roots: [{ uri: 'file://…', name? }] }`.
 */
export function admitInputResponse(
  method: string,
  value: unknown,
): Record<string, unknown> | undefined {
  if (!isObject(value)) return undefined
  switch (method) {
    case 'elicitation/create': {
      if (!ELICIT_ACTIONS.has(value.action)) return undefined
      if (value.content === undefined) return { action: value.action }
      if (!isObject(value.content) || !Object.values(value.content).every(isElicitValue)) {
        return undefined
      }
      return { action: value.action, content: value.content }
    }
    case 'sampling/createMessage': {
      const content = value.content
      const contentOk = Array.isArray(content)
        ? content.length > 0 && content.every(isContentBlock)
        : isContentBlock(content)
      if (!ROLES.has(value.role) || typeof value.model !== 'string' || !contentOk) return undefined
      if (value.stopReason !== undefined && typeof value.stopReason !== 'string') return undefined
      const out: Record<string, unknown> = {
        role: value.role,
        content,
        model: value.model,
      }
      if (value.stopReason !== undefined) out.stopReason = value.stopReason
      return out
    }
    case 'roots/list': {
      if (!Array.isArray(value.roots)) return undefined
      const roots: Record<string, unknown>[] = []
      for (const root of value.roots) {
        if (!isObject(root) || typeof root.uri !== 'string' || !root.uri.startsWith('file://')) {
          return undefined
        }
        if (root.name !== undefined && typeof root.name !== 'string') return undefined
        roots.push(root.name === undefined ? { uri: root.uri } : { uri: root.uri, name: root.name })
      }
      return { roots }
    }
    default:
      return undefined
  }
}
