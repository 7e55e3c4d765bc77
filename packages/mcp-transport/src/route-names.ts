// The prompt and resource surfaces of a route. A 2026-07-28 `prompts/get` or `resources/read`
// mirrors the prompt's name or the resource's URI in `Mcp-Name`, so a route that serves a few of
// them can refuse the rest before the body; a 2025 request carries the same name in its body
// only, and is judged there once parsed. A name off the surface gets one fixed answer whether it
// exists on another route or nowhere (no oracle of which names exist), and the answer never
// holds the name: the SDK's own "not found" quotes it, these do not.
//
// Resource entries are exact URIs or templates whose `{var}` parts each stand for one piece of
// a path segment. Matching is deliberately narrower than a server's: a surface refuses a URI
// it cannot judge rather than admit one a server's URL parsing could move elsewhere.

import {
  UNKNOWN_PROMPT_CODE,
  UNKNOWN_PROMPT_ERROR,
  UNKNOWN_RESOURCE_CODE,
  UNKNOWN_RESOURCE_ERROR,
} from './modern-refusal.js'
import type { JsonRpcErrorObject } from './transport-decorator.js'

/** Longest prompt name or resource URI (entry or request) a surface considers, in characters. */
export const MAX_SURFACE_NAME_LENGTH = 2048

// Characters a resource URI on a surface never holds: C0 controls, space, DEL (a WHATWG URL
// parser drops tabs and newlines, so `.\t.` becomes `..`) and `\` (a `/` to that parser).
const FORBIDDEN = /[\u0000-\u0020\u007f\\]/
const VARIABLE = /^[A-Za-z0-9_]+$/
// What a template variable's value never holds: a segment, query or fragment delimiter.
const DELIMITERS = new Set(['/', '?', '#'])

/** A compiled resource template: literal parts, each variable between two of them. */
interface Template {
  readonly literals: readonly string[]
}

// An escaped `/`, `\` or NUL in a variable's value: a server that decodes its variables would
// see a separator (`..%2Fsecret`) the template never allowed.
const ESCAPED_SEPARATOR = /%(?:2f|5c|00)/i

/**
 * Whether `text` cannot be a template variable's value: a dot segment once `%2e` is read as `.`
 * (as URL parsers read it), or a value holding an escaped separator.
 */
function isForbiddenValue(text: string): boolean {
  const dots = text.toLowerCase().replaceAll('%2e', '.')
  return dots === '.' || dots === '..' || ESCAPED_SEPARATOR.test(text)
}

function compileTemplate(entry: string, name: string): Template {
  const literals: string[] = []
  let rest = entry
  for (;;) {
    const open = rest.indexOf('{')
    const literal = open === -1 ? rest : rest.slice(0, open)
    if (literal.includes('}')) throw new TypeError(`${name} has a '}' outside a variable`)
    if (open === -1) {
      literals.push(literal)
      return { literals }
    }
    if (literals.length > 0 && literal === '') {
      // `{a}{b}`: where one variable ends would be a guess.
      throw new TypeError(`${name} has two variables with nothing between them`)
    }
    literals.push(literal)
    const close = rest.indexOf('}', open)
    if (close === -1 || !VARIABLE.test(rest.slice(open + 1, close))) {
      throw new TypeError(`${name} must use only {name} variables (letters, digits, _)`)
    }
    rest = rest.slice(close + 1)
  }
}

/**
 * Whether `uri` is an instance of `template`: its literals in order, and between two of them a
 * variable's value of at least one character, running up to the first character of the next
 * literal (or to the end), with no `/`, `?` or `#` (escaped or not: `%2F`, `%5C`, `%00` too) and
 * never a dot segment. Linear in `uri`.
 */
function matchesTemplate(template: Template, uri: string): boolean {
  const { literals } = template
  const first = literals[0] as string
  if (!uri.startsWith(first)) return false
  let at = first.length
  for (let i = 1; i < literals.length; i++) {
    const next = literals[i] as string
    const stop = next === '' ? undefined : next[0]
    let end = at
    while (end < uri.length && uri[end] !== stop && !DELIMITERS.has(uri[end] as string)) end++
    if (end === at || isForbiddenValue(uri.slice(at, end))) return false
    if (next === '') return end === uri.length
    if (!uri.startsWith(next, end)) return false
    at = end + next.length
  }
  return at === uri.length
}

function checkEntry(entry: unknown, name: string): asserts entry is string {
  if (typeof entry !== 'string' || entry.length === 0 || entry.length > MAX_SURFACE_NAME_LENGTH) {
    throw new TypeError(`${name} must be a string of 1–${MAX_SURFACE_NAME_LENGTH} characters`)
  }
}

/** The names a route serves of one kind: `has(name)` judges a name a request carries. */
interface NameSurface {
  has(name: string): boolean
}

/** The one answer to a name off a surface: the refusal event's code and the JSON-RPC error. */
export interface UnknownName {
  readonly code: `ERR_${string}`
  readonly error: JsonRpcErrorObject
}

const UNKNOWN_PROMPT: UnknownName = Object.freeze({
  code: UNKNOWN_PROMPT_CODE,
  error: UNKNOWN_PROMPT_ERROR,
})
const UNKNOWN_RESOURCE: UnknownName = Object.freeze({
  code: UNKNOWN_RESOURCE_CODE,
  error: UNKNOWN_RESOURCE_ERROR,
})

interface NameRule {
  readonly field: string
  readonly surface: NameSurface
  readonly unknown: UnknownName
}

type Obj = Record<string, unknown>
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A route's prompt and resource surfaces, by the method that names what it reads. */
export interface RouteNames {
  /** The answer to `name` on a head naming `method`, or `undefined` when it may go on. */
  judgeHead(method: string, name: string): UnknownName | undefined
  /** The answer to a parsed message (or the first of a batch) off a surface, else `undefined`. */
  judgeBody(body: unknown): UnknownName | undefined
}

/**
 * The surfaces of checked `prompts` and `resources` options; `undefined` when neither is set
 * (every name goes on). A method a surface does not judge, or a name that is not a string (the
 * server's own schema refuses it), goes on.
 */
export function routeNames(
  prompts: readonly string[] | undefined,
  resources: readonly string[] | undefined,
): RouteNames | undefined {
  if (prompts === undefined && resources === undefined) return undefined
  const rules = new Map<string, NameRule>()
  if (prompts !== undefined) {
    rules.set('prompts/get', {
      field: 'name',
      surface: promptSurface(prompts),
      unknown: UNKNOWN_PROMPT,
    })
  }
  if (resources !== undefined) {
    rules.set('resources/read', {
      field: 'uri',
      surface: resourceSurface(resources),
      unknown: UNKNOWN_RESOURCE,
    })
  }
  const judgeHead = (method: string, name: string): UnknownName | undefined => {
    const rule = rules.get(method)
    return rule === undefined || rule.surface.has(name) ? undefined : rule.unknown
  }
  const judgeMessage = (message: unknown): UnknownName | undefined => {
    if (!isObject(message) || typeof message.method !== 'string') return undefined
    const rule = rules.get(message.method)
    const named =
      rule !== undefined && isObject(message.params) ? message.params[rule.field] : undefined
    return typeof named === 'string' ? judgeHead(message.method, named) : undefined
  }
  return Object.freeze({
    judgeHead,
    judgeBody(body: unknown): UnknownName | undefined {
      if (!Array.isArray(body)) return judgeMessage(body)
      for (const message of body) {
        const unknown = judgeMessage(message)
        if (unknown !== undefined) return unknown
      }
      return undefined
    },
  })
}

/**
 * Checks the `prompts` option: an array of prompt names (1–2,048 characters each).
 * @throws TypeError otherwise.
 */
export function checkPromptNames(value: unknown, name: string): void {
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array of prompt names`)
  for (const [i, entry] of value.entries()) checkEntry(entry, `${name}[${i}]`)
}

/**
 * Checks the `resources` option: an array of URIs or URI templates (1–2,048 characters, no
 * control character, space or `\`, only `{name}` variables with something between two).
 * @throws TypeError otherwise.
 */
export function checkResourceEntries(value: unknown, name: string): void {
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array of resource URIs`)
  for (const [i, entry] of value.entries()) {
    checkEntry(entry, `${name}[${i}]`)
    if (FORBIDDEN.test(entry)) {
      throw new TypeError(`${name}[${i}] holds a control character, a space or '\\'`)
    }
    compileTemplate(entry, `${name}[${i}]`)
  }
}

/** The surface of a checked `prompts` option: exact names. */
function promptSurface(names: readonly string[]): NameSurface {
  const set = new Set(names)
  return Object.freeze({ has: (name: string) => set.has(name) })
}

/** The surface of a checked `resources` option: exact URIs, then each template in turn. */
function resourceSurface(entries: readonly string[]): NameSurface {
  const exact = new Set<string>()
  const templates: Template[] = []
  for (const entry of entries) {
    if (entry.includes('{')) templates.push(compileTemplate(entry, 'resources'))
    else exact.add(entry)
  }
  return Object.freeze({
    has(uri: string): boolean {
      if (uri.length > MAX_SURFACE_NAME_LENGTH || FORBIDDEN.test(uri)) return false
      return exact.has(uri) || templates.some((t) => matchesTemplate(t, uri))
    },
  })
}
