// The key set of sealed handles. The first key signs; every listed key verifies, so a rotation
// is: put the new key first, keep the old one listed until the last handle it signed has
// expired (`ttlMs`), then drop it. Secrets are copied into closures here and nowhere else: the
// control, its options and its audit events hold key ids only, so no log line, `inspect()` or
// `JSON.stringify()` of them can carry a secret.

import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto'

/** One key of a sealed-handle key set. */
export interface SealingKey {
  /** The key's id, written into every handle it signs: 1–32 characters of `[A-Za-z0-9_-]`. */
  readonly id: string
  /** The HMAC-SHA256 secret: at least 32 bytes from a CSPRNG. Copied at construction. */
  readonly secret: Uint8Array
}

/** The operations a resolved key offers; its secret is not reachable from here. */
export interface KeyOps {
  readonly id: string
  /** HMAC-SHA256 of `text` (UTF-8) under the key, 32 bytes. */
  mac(text: string): Buffer
  /** A 16-byte binding tag of `value` in the `domain`, base64url (22 characters). */
  tag(domain: string, value: string): string
}

/** The resolved key set: the signing key and a lookup by id. */
export interface KeyRing {
  readonly signer: KeyOps
  /** Key ids, signing key first (frozen). */
  readonly ids: readonly string[]
  get(id: string): KeyOps | undefined
}

/** Most keys a set may hold: a rotation needs two or three; a long list is a config mistake. */
export const MAX_SEALING_KEYS = 16
/** Fewest secret bytes: HMAC-SHA256 with less than its output size weakens the MAC. */
export const MIN_SECRET_BYTES = 32

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/

/**
 * Validates and copies a key set. Throws a `TypeError` naming the index (never a secret) on a
 * set that is not a non-empty array of at most 16 keys, an id outside the grammar or repeated,
 * or a secret that is not a `Uint8Array` of at least 32 bytes.
 */
export function createKeyRing(keys: unknown, name = 'keys'): KeyRing {
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_SEALING_KEYS) {
    throw new TypeError(`${name} must be an array of 1–${MAX_SEALING_KEYS} keys`)
  }
  const byId = new Map<string, KeyOps>()
  keys.forEach((key: unknown, i) => {
    const where = `${name}[${i}]`
    if (key === null || typeof key !== 'object') throw new TypeError(`${where} must be an object`)
    const { id, secret } = key as { id?: unknown; secret?: unknown }
    if (typeof id !== 'string' || !KEY_ID.test(id)) {
      throw new TypeError(`${where}.id must be 1–32 characters of [A-Za-z0-9_-]`)
    }
    if (!(secret instanceof Uint8Array) || secret.byteLength < MIN_SECRET_BYTES) {
      throw new TypeError(
        `${where}.secret must be a Uint8Array of at least ${MIN_SECRET_BYTES} bytes`,
      )
    }
    if (byId.has(id)) throw new TypeError(`${where}.id is listed twice`)
    // A KeyObject: the bytes are copied once, and each HMAC skips importing them again.
    byId.set(id, keyOps(id, createSecretKey(Buffer.from(secret))))
  })
  const ids = Object.freeze([...byId.keys()])
  const signer = byId.get(ids[0] as string) as KeyOps
  return Object.freeze({ signer, ids, get: (id: string) => byId.get(id) })
}

function keyOps(id: string, secret: KeyObject): KeyOps {
  const mac = (text: string) => createHmac('sha256', secret).update(text, 'utf8').digest()
  return Object.freeze({
    id,
    mac,
    // Domain-separated so a tag of one kind can never stand in for another, and keyed so a
    // principal or argument set cannot be guessed offline from a handle.
    tag: (domain: string, value: string) =>
      mac(`tollgate-sealed-handle/${domain}\u0000${value}`).subarray(0, 16).toString('base64url'),
  })
}

/** Constant-time equality of two byte strings (false on a length difference). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && timingSafeEqual(a, b)
}

/** Constant-time equality of two ASCII tags. */
export function sameTag(a: string, b: string): boolean {
  return sameBytes(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}
