// The pattern grammar of mount, allow and deny lists.
//
//   pattern  = segment-pattern *( "." segment-pattern ) [ "." "**" ]  |  "**"
//   segment-pattern = name-segment | "*"
//
// `*` matches exactly one segment; a final `**` matches one or more further segments (a bare
// `**` matches every name). Literal segments compare byte for byte. There is no regex, no
// prefix match on partial segments and no case folding, so `knowledge.doc*` is not a pattern.

import { isNameSegment, MAX_SEGMENTS } from './names.js'

/** A compiled mount/allow/deny pattern. */
export interface NamePattern {
  /** The pattern as written. */
  readonly source: string
  /** Whether `name` (a valid tool name) matches. */
  matches(name: string): boolean
}

/**
 * Compiles one pattern. Throws a `TypeError` naming the pattern's index (never its text) when
 * it is outside the grammar above.
 */
export function compilePattern(source: string, where = 'pattern'): NamePattern {
  if (typeof source !== 'string' || source.length === 0) {
    throw new TypeError(`${where} must be a non-empty string`)
  }
  const parts = source.split('.')
  if (parts.length > MAX_SEGMENTS) throw new TypeError(`${where} has too many segments`)
  const last = parts.length - 1
  const tail = parts[last] === '**'
  parts.forEach((part, i) => {
    if (part === '*' || (part === '**' && i === last) || isNameSegment(part)) return
    throw new TypeError(`${where} is outside the pattern grammar`)
  })
  const fixed = tail ? parts.slice(0, last) : parts
  const matches = (name: string): boolean => {
    const segs = name.split('.')
    if (tail ? segs.length <= fixed.length : segs.length !== fixed.length) return false
    for (let i = 0; i < fixed.length; i++) {
      const p = fixed[i]
      if (p !== '*' && p !== segs[i]) return false
    }
    return true
  }
  return Object.freeze({ source, matches })
}

/** Compiles a list of patterns (see {@link compilePattern}); the result is frozen. */
export function compilePatterns(sources: readonly string[], where: string): readonly NamePattern[] {
  if (!Array.isArray(sources)) throw new TypeError(`${where} must be an array of patterns`)
  return Object.freeze(sources.map((s, i) => compilePattern(s, `${where}[${i}]`)))
}

/** Whether any pattern in `patterns` matches `name`. */
export function matchesAny(patterns: readonly NamePattern[], name: string): boolean {
  for (const p of patterns) if (p.matches(name)) return true
  return false
}
