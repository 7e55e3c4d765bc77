// The value forms of the 2026-07-28 mirrored headers (`Mcp-Name`, `Mcp-Param-{Name}`): plain
// text, or `=?base64?<payload>?=` for a value HTTP cannot carry as it is (non-ASCII, leading or
// trailing spaces). A sentinel whose payload is not canonical Base64 of well-formed UTF-8 is
// refused, as the spec requires; a lenient decoder would let two header spellings stand for
// one body value and a proxy routing on the header judge something else than the server runs.

const PREFIX = '=?base64?'
const SUFFIX = '?='
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Removes RFC 9110 optional whitespace (spaces and tabs) around a field value. */
export function stripOws(value: string): string {
  let start = 0
  let end = value.length
  while (start < end && (value[start] === ' ' || value[start] === '\t')) start++
  while (end > start && (value[end - 1] === ' ' || value[end - 1] === '\t')) end--
  return start === 0 && end === value.length ? value : value.slice(start, end)
}

/**
 * Decodes one mirrored header value: the `=?base64?…?=` form to its UTF-8 text, any other
 * value as it is (optional whitespace removed). `undefined` for a sentinel whose payload is
 * not canonical Base64 or not well-formed UTF-8, and for a repeated header (Node hands an
 * array, or joins custom headers with `, `, which then fails to match).
 */
export function decodeMcpHeaderValue(raw: string | readonly string[]): string | undefined {
  if (typeof raw !== 'string') return undefined
  const value = stripOws(raw)
  if (!(value.startsWith(PREFIX) && value.endsWith(SUFFIX) && value.length >= 11)) return value
  const payload = value.slice(PREFIX.length, value.length - SUFFIX.length)
  if (!CANONICAL_BASE64.test(payload)) return undefined
  try {
    return STRICT_UTF8.decode(Buffer.from(payload, 'base64'))
  } catch {
    return undefined
  }
}

/**
 * The text a primitive argument is mirrored as: a string as it is, a boolean as `true` /
 * `false`, a finite number in its decimal form; `undefined` for anything else (no header is
 * expected for it).
 */
export function mirroredText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'number' && Number.isFinite(value)) {
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? undefined : String(value)
  }
  return undefined
}

const DECIMAL = /^-?\d+(\.\d+)?$/

/**
 * Whether a decoded header text stands for the body value: numbers compare numerically when
 * the header is a plain decimal (`42.0` and `42` agree), everything else as text.
 */
export function headerMatchesValue(decoded: string, value: unknown): boolean {
  if (typeof value === 'number' && DECIMAL.test(decoded)) return Number(decoded) === value
  return decoded === mirroredText(value)
}
