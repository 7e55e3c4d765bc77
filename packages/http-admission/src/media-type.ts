import { admissionError } from './codes.js'

/**
 * Whether a `Content-Type` value names one of `types` (lower-case `type/subtype`, `type/*` or
 * `*\/*+suffix`) with no charset or a UTF-8 one. JSON is UTF-8 (RFC 8259 §8.1), so any other
 * charset is refused rather than decoded.
 * @returns `'match'`, `'other'` (a media type not in `types`, or none at all unless `types`
 * holds `*\/*`) or throws.
 * @throws AdmissionError `ERR_BODY_MEDIA_TYPE` for a matching type with a charset other than UTF-8.
 */
export function matchMediaType(
  header: string | undefined | null,
  types: readonly string[],
): 'match' | 'other' {
  // A body sent without a type is admitted only by a route that takes any type (`*/*`, also
  // what a `type` function resolves to once it has accepted the request).
  if (header === undefined || header === null || header === '') {
    return types.includes('*/*') ? 'match' : 'other'
  }
  const [essence = '', ...params] = header.split(';')
  const mediaType = essence.trim().toLowerCase()
  const slash = mediaType.indexOf('/')
  if (slash <= 0 || slash === mediaType.length - 1) return 'other'
  const type = mediaType.slice(0, slash)
  const subtype = mediaType.slice(slash + 1)
  if (!types.some((pattern) => matches(pattern, type, subtype))) return 'other'
  for (const param of params) {
    const eq = param.indexOf('=')
    if (eq < 0) continue
    if (param.slice(0, eq).trim().toLowerCase() !== 'charset') continue
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase()
    if (charset !== 'utf-8' && charset !== 'utf8') {
      throw admissionError('ERR_BODY_MEDIA_TYPE')
    }
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
