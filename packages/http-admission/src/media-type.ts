import { safeParse } from 'fast-content-type-parse'
import { admissionError } from './codes.js'

/**
 * Whether a `Content-Type` value names one of `types` (lower-case `type/subtype`, `type/*`,
 * `*\/*+suffix` or `*\/*`) with no charset or a UTF-8 one. The header is parsed by
 * `fast-content-type-parse` to RFC 9110 §8.3.1: type, subtype and parameter names compare
 * case-insensitively, quoted parameter values are unquoted (a `;` inside quotes is part of the
 * value), whitespace around `;` is allowed, and of repeated parameters the first counts (as the
 * WHATWG MIME Sniffing standard reads them). A header that does not parse (no subtype, a
 * parameter without a value, an unclosed quote) names no media type. JSON is UTF-8 (RFC 8259
 * §8.1), so any other charset is refused rather than decoded.
 * @returns `'match'`, or `'other'` (a media type not in `types`, a malformed header, or none at
 * all unless `types` holds `*\/*`).
 * @throws AdmissionError `ERR_BODY_MEDIA_TYPE` for a matching type with a charset other than UTF-8.
 */
export function matchMediaType(
  header: string | undefined | null,
  types: readonly string[],
): 'match' | 'other' {
  // Most requests to a route send the same header: the last outcome for the same header and
  // the same frozen `types` (the array resolved options hold, which cannot change) is reused,
  // which skips parsing the header. A refusal (it throws) is never kept.
  if (header === lastHeader && types === lastTypes) return lastOutcome
  const outcome = classify(header, types)
  if (typeof header === 'string' && Object.isFrozen(types)) {
    lastHeader = header
    lastTypes = types
    lastOutcome = outcome
  }
  return outcome
}

let lastHeader: string | undefined
let lastTypes: readonly string[] | undefined
let lastOutcome: 'match' | 'other' = 'other'

function classify(header: string | undefined | null, types: readonly string[]): 'match' | 'other' {
  // A body sent without a type is admitted only by a route that takes any type (`*/*`, also
  // what a `type` function resolves to once it has accepted the request).
  if (header === undefined || header === null || header === '') {
    return types.includes('*/*') ? 'match' : 'other'
  }
  const { type: mediaType, parameters } = safeParse(header)
  // A malformed header parses to the empty type, which no pattern matches.
  const slash = mediaType.indexOf('/')
  if (slash <= 0) return 'other'
  const type = mediaType.slice(0, slash)
  const subtype = mediaType.slice(slash + 1)
  if (!types.some((pattern) => matches(pattern, type, subtype))) return 'other'
  const charset = parameters.charset?.toLowerCase()
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw admissionError('ERR_BODY_MEDIA_TYPE')
  }
  return 'match'
}

function matches(pattern: string, type: string, subtype: string): boolean {
  const slash = pattern.indexOf('/')
  const pType = pattern.slice(0, slash)
  const pSub = pattern.slice(slash + 1)
  if (pType !== '*' && pType !== type) return false
  if (pSub === '*') return true
  if (pSub.startsWith('*+')) return subtype.endsWith(pSub.slice(1))
  return pSub === subtype
}
