/**
 * JSON Pointer (RFC 6901) rendering with bounds. A refusal path must not become a channel for
 * a caller's bytes, so a segment longer than {@link MAX_POINTER_SEGMENT} characters, or one
 * holding a control, surrogate or non-ASCII-printable character, is replaced by
 * `<N chars>` (its length), and the whole pointer is cut at {@link MAX_POINTER_LENGTH}
 * characters with a final `/…`.
 */
export const MAX_POINTER_SEGMENT = 64
/** Longest rendered pointer, in UTF-16 code units, before it is cut. */
export const MAX_POINTER_LENGTH = 512

const PRINTABLE = /^[\x20-\x7e]*$/

/** Renders one pointer segment under the bounds above. */
export function formatPointerSegment(segment: string | number): string {
  if (typeof segment === 'number') return String(segment)
  if (segment.length > MAX_POINTER_SEGMENT || !PRINTABLE.test(segment)) {
    return `<${segment.length} chars>`
  }
  return segment.replace(/~/g, '~0').replace(/\//g, '~1')
}

/** Renders a bounded JSON Pointer from its segments (`''` for the root). */
export function formatPointer(segments: readonly (string | number)[]): string {
  let out = ''
  for (const segment of segments) {
    const next = `/${formatPointerSegment(segment)}`
    if (out.length + next.length > MAX_POINTER_LENGTH) return `${out}/…`
    out += next
  }
  return out
}
