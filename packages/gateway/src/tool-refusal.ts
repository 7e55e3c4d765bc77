import type { AjvError } from './schema-compile.js'

// Every refusal the tool guard answers is an `isError` tool result whose text is built from
// fragments with a byte cap each, so its size is a constant whatever was sent: the tool name
// (64 printable ASCII characters or its length), a JSON Pointer (each key the schema itself
// names, shown; any other key, which the caller chose, shown as its length; cut at 256
// characters), the failing keyword and the schema's limit for it (64 characters or its
// length). No value from the arguments or the result ever appears.

/** Most characters of a refusal's text (the rendered fragments' caps summed, with margin). */
export const MAX_REFUSAL_TEXT = 600

const MAX_NAME = 64
const MAX_POINTER = 256
const PRINTABLE = /^[\x20-\x7e]*$/

/** An `isError` tool result carrying a refusal's text. */
export interface ToolRefusal {
  /** Stable code: `ERR_TOOL_ARGUMENTS`, `ERR_TOOL_RESULT`, `ERR_TOOL_UNKNOWN`, `ERR_TOOL_QUARANTINED`. */
  readonly code: string
  readonly result: { content: [{ type: 'text'; text: string }]; isError: true }
}

/**
 * The text every unknown or quarantined tool gets, byte for byte: a quarantined tool is out of
 * `tools/list`, so a caller must not learn that it exists.
 */
export const UNKNOWN_TOOL_TEXT = 'Unknown tool'

/** A name as a refusal may show it: at most 64 printable ASCII characters, else its length. */
export function boundedToolName(name: string): string {
  return name.length > MAX_NAME || !PRINTABLE.test(name) ? `<${name.length} chars>` : name
}

/** The refusal of a call to a tool the guard does not serve (`code` says which case, for audit). */
export function unknownToolRefusal(code: 'ERR_TOOL_UNKNOWN' | 'ERR_TOOL_QUARANTINED'): ToolRefusal {
  return refusal(code, UNKNOWN_TOOL_TEXT)
}

/** The refusal of a value its schema refused, or of a result missing its `structuredContent`. */
export function schemaRefusal(
  code: 'ERR_TOOL_ARGUMENTS' | 'ERR_TOOL_RESULT',
  tool: string,
  error: AjvError | undefined,
  knownKeys: ReadonlySet<string>,
  value: unknown,
): ToolRefusal {
  const what = code === 'ERR_TOOL_ARGUMENTS' ? 'Invalid arguments' : 'Invalid result'
  const head = `${what} for tool ${boundedToolName(tool)}: `
  if (error === undefined) return refusal(code, `${head}structuredContent is missing`)
  const segments = pointerSegments(error.instancePath)
  const key = keyParam(error)
  if (key !== undefined) segments.push(key)
  const pointer = renderPointer(segments, knownKeys, value)
  const limit = limitOf(error)
  const keyword = boundedToolName(error.keyword)
  return refusal(code, `${head}${pointer === '' ? '(root)' : pointer} fails ${keyword}${limit}`)
}

function refusal(code: string, text: string): ToolRefusal {
  return { code, result: { content: [{ type: 'text', text }], isError: true } }
}

// Keywords whose error names an object key in its params rather than in the instance path.
function keyParam(error: AjvError): string | undefined {
  const p = error.params
  const key = p.unevaluatedProperty ?? p.additionalProperty ?? p.missingProperty ?? p.propertyName
  return typeof key === 'string' ? key : undefined
}

// The schema's side of the failed keyword: a number, a type or format name, `false` for a
// closed object. Patterns and enumerations are left out (long, and they say what the schema
// expects rather than where the call went wrong).
function limitOf(error: AjvError): string {
  const p = error.params
  if (error.keyword === 'unevaluatedProperties' || error.keyword === 'additionalProperties') {
    return ' false'
  }
  const value = p.limit ?? p.multipleOf ?? p.type ?? p.format
  if (typeof value === 'number' && Number.isFinite(value)) return ` ${value}`
  if (typeof value === 'string') return ` ${boundedToolName(value)}`
  if (Array.isArray(value)) return ` ${boundedToolName(value.join(','))}`
  return ''
}

function pointerSegments(instancePath: string): string[] {
  if (instancePath === '') return []
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
}

// A key is shown only when the schema itself spells it (it is the server's word, not the
// caller's); an index into an array is shown as is; any other key is shown as its length.
function renderPointer(
  segments: readonly string[],
  knownKeys: ReadonlySet<string>,
  value: unknown,
): string {
  let out = ''
  let at: unknown = value
  for (const segment of segments) {
    let text: string
    if (Array.isArray(at)) {
      text = segment
      at = at[Number(segment)]
    } else {
      const known = knownKeys.has(segment) && segment.length <= MAX_NAME && PRINTABLE.test(segment)
      text = known
        ? segment.replace(/~/g, '~0').replace(/\//g, '~1')
        : `<key of ${segment.length} chars>`
      at =
        typeof at === 'object' && at !== null && Object.hasOwn(at, segment)
          ? (at as Record<string, unknown>)[segment]
          : undefined
    }
    const next = `${out}/${text}`
    if (next.length > MAX_POINTER) return `${out}/…`
    out = next
  }
  return out
}
