import { admissionError } from './codes.js'

/**
 * Parses a `Content-Length` header. It is used only to refuse early and to detect a body that
 * ends short; bytes are always counted as they arrive.
 * @returns the declared length, or `undefined` when none was sent.
 * @throws AdmissionError `ERR_BODY_INVALID_LENGTH` for a value that is not a decimal integer
 * (signs, spaces inside, hex, non-numeric), one past `Number.MAX_SAFE_INTEGER`, or a repeated
 * (comma-separated or array) value.
 */
export function parseContentLength(
  header: string | readonly string[] | undefined | null,
): number | undefined {
  if (header === undefined || header === null) return undefined
  if (typeof header !== 'string') {
    if (header.length !== 1) throw admissionError('ERR_BODY_INVALID_LENGTH')
    return parseContentLength(header[0])
  }
  const value = header.trim()
  if (!/^[0-9]{1,16}$/.test(value)) throw admissionError('ERR_BODY_INVALID_LENGTH')
  const length = Number(value)
  if (!Number.isSafeInteger(length)) throw admissionError('ERR_BODY_INVALID_LENGTH')
  return length
}
