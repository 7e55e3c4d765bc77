// Units as the `bytes` package (and so body-parser's `limit`) reads them: powers of 1024,
// case-insensitive, an optional space before the unit, a bare number meaning bytes.
const UNITS: Readonly<Record<string, number>> = Object.freeze({
  b: 1,
  kb: 1024,
  mb: 1024 ** 2,
  gb: 1024 ** 3,
  tb: 1024 ** 4,
  pb: 1024 ** 5,
})

// Anchored and free of nested quantifiers, so a hostile configuration string costs linear time.
const BYTE_STRING = /^([0-9]{1,16}(?:\.[0-9]{1,16})?) ?(b|kb|mb|gb|tb|pb)?$/i

/**
 * Reads a byte limit written as body-parser writes one: a number of bytes, or a string such as
 * `'100kb'`, `'1.5mb'`, `'512 b'` or `'2048'` (units are powers of 1024, case-insensitive; a
 * fraction is rounded down to whole bytes). Validated at construction, never per request.
 * @param name the option named in the error.
 * @returns the limit in bytes, a positive safe integer.
 * @throws TypeError for anything else: a negative, zero, fractional or non-finite number, an
 * unknown unit, a string that is not a number and unit, or a result of 0 bytes.
 */
export function parseByteLimit(name: string, value: unknown): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new TypeError(`${name} must be a positive whole number of bytes or a size like '100kb'`)
    }
    return value
  }
  if (typeof value !== 'string') {
    throw new TypeError(`${name} must be a number of bytes or a size like '100kb'`)
  }
  const match = BYTE_STRING.exec(value.trim())
  if (match === null) {
    throw new TypeError(`${name} must be a number of bytes or a size like '100kb'`)
  }
  const unit = UNITS[(match[2] ?? 'b').toLowerCase()] as number
  const bytes = Math.floor(Number(match[1]) * unit)
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new TypeError(`${name} must be at least 1 byte and at most a safe integer`)
  }
  return bytes
}
