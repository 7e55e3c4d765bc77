// The strict grammar for tool names and for names composed from caller input. Names are
// compared byte for byte: no case folding, no Unicode normalization, no trimming, no fallback
// scan. Anything outside the grammar is refused exactly like a name that is not mounted.

/** Longest segment of a tool name, in characters. */
export const MAX_SEGMENT_LENGTH = 64

/** Most segments a tool name may have (`dispatcher.resource.action` needs three). */
export const MAX_SEGMENTS = 8

// ASCII only, lower case first letter. Checked after a length test so a huge caller string is
// never scanned.
const SEGMENT = /^[a-z][a-z0-9_-]*$/

/**
 * Whether `segment` is one segment of a tool name: 1–64 characters of `[a-z0-9_-]`, starting
 * with a lower-case ASCII letter. Non-strings are refused.
 */
export function isNameSegment(segment: unknown): segment is string {
  return (
    typeof segment === 'string' &&
    segment.length > 0 &&
    segment.length <= MAX_SEGMENT_LENGTH &&
    SEGMENT.test(segment)
  )
}

/**
 * Whether `name` is a tool name: 1–8 segments (see {@link isNameSegment}) joined by `.`.
 */
export function isToolName(name: unknown): name is string {
  if (typeof name !== 'string') return false
  if (name.length === 0 || name.length > MAX_SEGMENTS * (MAX_SEGMENT_LENGTH + 1)) return false
  const parts = name.split('.')
  if (parts.length > MAX_SEGMENTS) return false
  for (const part of parts) if (!isNameSegment(part)) return false
  return true
}

/**
 * Composes a tool name from segments, some of them caller input (a group dispatcher's
 * `resource` and `action`, a class dispatcher's `action`). Returns `undefined` when any
 * segment is not a string in the segment grammar — the caller answers that exactly like a
 * name that is not mounted.
 */
export function composeToolName(segments: readonly unknown[]): string | undefined {
  if (segments.length === 0 || segments.length > MAX_SEGMENTS) return undefined
  for (const segment of segments) if (!isNameSegment(segment)) return undefined
  return segments.join('.')
}
