// Tokens: 128 bits from the CSPRNG, base64url (22 characters). The store keys entries by the
// token's SHA-256, so a dump of the store holds nothing redeemable.

import { createHash, randomBytes } from 'node:crypto'

/** Length of a token in characters (16 random bytes, base64url, no padding). */
export const TOKEN_LENGTH = 22

const TOKEN = /^[A-Za-z0-9_-]{22}$/

/** A new 128-bit token from `crypto.randomBytes`, base64url. */
export function createToken(): string {
  return randomBytes(16).toString('base64url')
}

/** Whether `value` has the shape of a token (22 base64url characters). */
export function isTokenShape(value: unknown): value is string {
  return typeof value === 'string' && value.length === TOKEN_LENGTH && TOKEN.test(value)
}

/** The store key and audit name of a token: its SHA-256, lower-case hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}
