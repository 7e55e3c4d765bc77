import { formatPointerSegment, MAX_POINTER_SEGMENT } from '@tollgate/json-budget'

// Each fragment a refusal holds has its own byte cap, measured as the fragment serializes
// inside a JSON string (a `"` or `\` costs two bytes there), so the whole refusal's size is a
// sum of caps, not a function of the input. `test/refusal.test.ts` recomputes that sum.

/** Most bytes a rendered JSON Pointer may take inside the refusal's JSON text. */
export const MAX_POINTER_BYTES = 320
/** Most bytes a rendered schema limit (`maxLength 200`, a pattern, an enum) may take. */
export const MAX_LIMIT_BYTES = 200
/** Most bytes a name (tool, keyword) may take: 64 printable ASCII characters, escaped. */
export const MAX_NAME_BYTES = 2 * MAX_POINTER_SEGMENT

const PRINTABLE = /^[\x20-\x7e]*$/

/** Bytes `text` takes inside a JSON string literal, quotes excluded. */
export function serializedBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2
}

/**
 * A name (tool name, keyword) as a refusal may show it: verbatim when it is at most 64
 * printable ASCII characters, else `<N chars>`, so a name cannot carry a caller's bytes out.
 */
export function boundedName(name: string): string {
  return name.length > MAX_POINTER_SEGMENT || !PRINTABLE.test(name)
    ? `<${name.length} chars>`
    : name
}

/**
 * Renders JSON Pointer segments (raw, unescaped) with json-budget's `formatPointerSegment`
 * (each key over 64 characters or holding a control character becomes `<N chars>`), then cuts
 * the pointer at {@link MAX_POINTER_BYTES} with a final `/…`.
 */
export function boundedPointer(segments: readonly (string | number)[]): string {
  return clampSegments(segments.map((s) => formatPointerSegment(s)))
}

/**
 * Re-bounds a pointer that is already formatted (json-budget's `AdmissionError.path`) to
 * {@link MAX_POINTER_BYTES}, cutting at a segment boundary.
 */
export function clampPointer(pointer: string): string {
  return pointer === '' ? '' : clampSegments(pointer.slice(1).split('/'))
}

function clampSegments(formatted: readonly string[]): string {
  let out = ''
  const reserve = serializedBytes('/…')
  for (const segment of formatted) {
    const next = `${out}/${segment}`
    if (serializedBytes(next) + reserve > MAX_POINTER_BYTES) return `${out}/…`
    out = next
  }
  return out
}

/** Splits an Ajv `instancePath` (a JSON Pointer) into raw segments. */
export function pointerSegments(instancePath: string): string[] {
  if (instancePath === '') return []
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
}

/**
 * A schema-side value (a limit, a pattern, an enum) as JSON, or `<N chars>` (its JSON length)
 * when that would take more than {@link MAX_LIMIT_BYTES}. Schema values are the server's, not
 * the caller's; they are bounded so the refusal's size stays a constant.
 */
export function boundedLimit(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value)
  return serializedBytes(json) > MAX_LIMIT_BYTES ? `<${json.length} chars>` : json
}
