// Ajv compiles every `pattern` with the `u` flag (code points); a handler's zod regex runs as
// written, usually without it (UTF-16 code units), and the SDK-derived schema drops the flags
// (zod 4.6.7 emits `regex.source`). The same pattern string can therefore mean two things:
// `^[^/]{1,8}$` admits five astral characters under `u` (five code points) and refuses them
// without it (ten code units). The two readings coincide on every string with no astral
// character (no surrogate pair): there each code unit is a code point, and a pattern made only
// of BMP atoms reads the same in both modes. So a pattern is compared as equal only when the
// published side provably admits no astral character; this module decides that, soundly and
// conservatively (anything it does not recognise counts as "may admit astral characters").

const SPECIAL = new Set([...'\\^$.|?*+()[]{}'])
// Escapes that stand for one BMP character (or a set of BMP characters) in both modes, without
// the `i` flag: `\d` is [0-9], `\w` [A-Za-z0-9_], `\s` Unicode white space (all in the BMP).
const CLASS_ESCAPES = new Set(['d', 'w', 's'])
const CONTROL_ESCAPES = new Set(['t', 'n', 'r', 'f', 'v', '0'])
const PUNCTUATION = new Set([...'^$\\.*+?()[]{}|/-'])

/**
 * True when `pattern`, compiled with the `u` flag (as Ajv compiles it), can only match strings
 * with no astral character (no code point above U+FFFF). Recognised: `^` first and `$` last,
 * BMP literals, escaped punctuation, `\d \w \s`, `\uXXXX`, `\xHH`, control escapes, positive
 * classes of those and of BMP ranges, groups (`(...)`, `(?:...)`) with `|` inside them, and
 * quantifiers. Anything else (`.`, a negated class, `\D \W \S`, `\p{...}`, `\u{...}`,
 * lookarounds, back-references, an unanchored or top-level-alternated pattern) returns false.
 */
export function admitsOnlyBmp(pattern: string): boolean {
  if (pattern.length < 2 || pattern[0] !== '^' || !pattern.endsWith('$')) return false
  const body = pattern.slice(1, -1)
  // A trailing `\$` is an escaped dollar, not the anchor.
  if (body.endsWith('\\') && !body.endsWith('\\\\')) return false
  let depth = 0
  let i = 0
  let atom = false // whether a quantifier may follow
  while (i < body.length) {
    const c = body[i] as string
    if (c === '(') {
      if (body.startsWith('(?:', i)) i += 3
      else if (body[i + 1] === '?')
        return false // lookaround or named group
      else i += 1
      depth += 1
      atom = false
    } else if (c === ')') {
      if (depth === 0) return false
      depth -= 1
      i += 1
      atom = true
    } else if (c === '|') {
      if (depth === 0) return false // `^a|b$` anchors only one side
      i += 1
      atom = false
    } else if (c === '[') {
      const end = classEnd(body, i)
      if (end < 0) return false
      i = end
      atom = true
    } else if (c === '\\') {
      const n = escapeLength(body, i)
      if (n === 0) return false
      i += n
      atom = true
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      if (!atom) return false
      const n = quantifierLength(body, i)
      if (n === 0) return false
      i += n
      if (body[i] === '?') i += 1 // lazy
      atom = false
    } else if (SPECIAL.has(c)) {
      return false // `.`, `^`, `$` inside, a stray `]` or `}`
    } else {
      if (!isBmpUnit(c)) return false
      i += 1
      atom = true
    }
  }
  return depth === 0
}

function isBmpUnit(c: string): boolean {
  const code = c.charCodeAt(0)
  // A surrogate in the pattern source is half of an astral literal (or a lone one): refuse.
  return code < 0xd800 || code > 0xdfff
}

/** Length of a BMP escape at `i` (`\d`, `\.`, `\u0041`, ...), or 0 when it is not one. */
function escapeLength(s: string, i: number, inClass = false): number {
  const e = s[i + 1]
  if (e === undefined) return 0
  if (CLASS_ESCAPES.has(e) || CONTROL_ESCAPES.has(e) || PUNCTUATION.has(e)) {
    // `\0` followed by a digit is not a NUL escape under `u`.
    if (e === '0' && /[0-9]/.test(s[i + 2] ?? '')) return 0
    return 2
  }
  if (e === 'b' && inClass) return 2 // backspace inside a class
  if (e === 'u' && /^[0-9A-Fa-f]{4}$/.test(s.slice(i + 2, i + 6))) {
    const code = Number.parseInt(s.slice(i + 2, i + 6), 16)
    // A surrogate escape may pair with the next one into an astral code point under `u`.
    return code >= 0xd800 && code <= 0xdfff ? 0 : 6
  }
  if (e === 'x' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 2, i + 4))) return 4
  return 0
}

/** Index just past a positive class of BMP members starting at `i`, or -1. */
function classEnd(s: string, i: number): number {
  let j = i + 1
  if (s[j] === '^') return -1 // a negated class matches astral characters
  while (j < s.length && s[j] !== ']') {
    if (s[j] === '\\') {
      const n = escapeLength(s, j, true)
      if (n === 0) return -1
      j += n
    } else if (s[j] === '[') {
      return -1 // nested class syntax (`v` flag) or a literal `[`: not recognised
    } else {
      if (!isBmpUnit(s[j] as string)) return -1
      j += 1
    }
  }
  // Ranges between BMP members stay in the BMP, so `-` needs no special handling here.
  return j < s.length ? j + 1 : -1
}

/** Length of a quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`), or 0. */
function quantifierLength(s: string, i: number): number {
  if (s[i] !== '{') return 1
  const m = /^\{[0-9]+(,[0-9]*)?\}/.exec(s.slice(i))
  return m === null ? 0 : m[0].length
}
