// The keys that seal `requestState`, as the config file names them. A fleet gives every
// instance the same list, newest first: the first key signs, every listed key verifies, so a
// rotation is "list the new key first, drop the old one once its handles have expired". The
// secrets are decoded here and kept in a closure: the config object, its `inspect()` and its
// `JSON.stringify()` show key ids only, and no error message ever quotes a secret.

import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { MIN_SECRET_BYTES, type SealingKey } from '@tollgate/continuation'
import type { GatewayConfigIssue } from './config.js'

/** One `sealingKeys` entry of the config file: an id and exactly one of `secret`, `secretFile`. */
export interface SealingKeyEntry {
  readonly id: string
  /** The secret, base64url without padding: at least 32 bytes once decoded (43 characters). */
  readonly secret?: string
  /** A file holding the secret as base64url text (surrounding whitespace ignored). */
  readonly secretFile?: string
}

/** A resolved key set: ids in the open, secrets behind {@link SealingKeySet.keys}. */
export interface SealingKeySet {
  /** Key ids, signing key first (frozen). */
  readonly ids: readonly string[]
  /** `true` when no key was configured and one was drawn at random for this process. */
  readonly generated: boolean
  /** Fresh copies of the keys, for `requestStateSeal({ keys })`; never log what it returns. */
  keys(): SealingKey[]
}

const BASE64URL = /^[A-Za-z0-9_-]+$/

/**
 * Decodes the config's `sealingKeys` (already shaped by the published schema). `secretFile` is
 * read now, relative to `baseDir` (the config file's folder), so a missing or short key fails
 * at start-up. Problems are pushed to `issues` by path (`sealingKeys[1].secretFile`), naming
 * the decoded length at most, never a secret.
 * @returns the key set, or `undefined` when an issue was pushed.
 */
export function readSealingKeys(
  entries: readonly SealingKeyEntry[],
  baseDir: string,
  issues: GatewayConfigIssue[],
): SealingKeySet | undefined {
  const keys: SealingKey[] = []
  const ids = new Set<string>()
  const before = issues.length
  entries.forEach((entry, i) => {
    const at = `sealingKeys[${i}]`
    if (ids.has(entry.id)) issues.push({ path: `${at}.id`, message: 'repeats an id' })
    ids.add(entry.id)
    let text: string
    let where: string
    if (entry.secret !== undefined) {
      text = entry.secret
      where = `${at}.secret`
    } else {
      where = `${at}.secretFile`
      try {
        text = readFileSync(resolve(baseDir, entry.secretFile as string), 'utf8').trim()
      } catch (error) {
        issues.push({
          path: where,
          message: `cannot be read (${String((error as { code?: unknown }).code)})`,
        })
        return
      }
    }
    const secret = decodeSecret(text)
    if (typeof secret === 'string') {
      issues.push({ path: where, message: secret })
      return
    }
    keys.push({ id: entry.id, secret })
  })
  return issues.length > before ? undefined : keySet(keys, false)
}

/**
 * One key drawn from the CSPRNG for this process only (id `local-` then 8 hex digits): what
 * the gateway seals with when the config names no key. Handles it signs open on this process
 * alone, and not after a restart; a fleet must configure `sealingKeys`.
 */
export function generatedSealingKeys(): SealingKeySet {
  return keySet([{ id: `local-${randomBytes(4).toString('hex')}`, secret: randomBytes(32) }], true)
}

// The bytes of a base64url secret, or why it cannot be one (the message never holds the text).
function decodeSecret(text: string): Uint8Array | string {
  if (!BASE64URL.test(text)) return 'must be base64url (A-Z a-z 0-9 - _, no padding)'
  const bytes = Buffer.from(text, 'base64url')
  // A non-canonical spelling (stray trailing bits) would make two texts one key: refuse it.
  if (bytes.toString('base64url') !== text) return 'is not canonical base64url'
  if (bytes.byteLength < MIN_SECRET_BYTES) {
    return `decodes to ${bytes.byteLength} bytes; at least ${MIN_SECRET_BYTES} are needed`
  }
  return bytes
}

function keySet(keys: readonly SealingKey[], generated: boolean): SealingKeySet {
  const held = keys.map((k) => ({ id: k.id, secret: Uint8Array.from(k.secret) }))
  return Object.freeze({
    ids: Object.freeze(held.map((k) => k.id)),
    generated,
    keys: () => held.map((k) => ({ id: k.id, secret: Uint8Array.from(k.secret) })),
  })
}
