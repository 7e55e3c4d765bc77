// The key set the server seals its `requestState` handles with (`--sealing-keys-file`). Every
// instance of a fleet reads the same file, so a handle minted on one is opened on any other
// with no shared store; a rotation is a new key listed first (it signs), the old one kept
// after it (it still opens what it signed) until the handle lifetime has passed. The file is
// read once at start and validated there; no secret is ever written to a log or an error.

import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import {
  type AuditSink,
  MAX_SEALING_KEYS,
  MIN_SECRET_BYTES,
  type SealedHandles,
  type SealingKey,
  sealedHandles,
} from '@tollgate/continuation'
import type { Audit } from './audit.js'

/** Lifetime of a sealed `requestState`: 10 minutes, time enough for a person to confirm. */
export const SEALED_STATE_TTL_MS = 10 * 60 * 1000

const FLAG = '--sealing-keys-file'
const BASE64URL = /^[A-Za-z0-9_-]+$/

/**
 * Reads a key file: `{ "keys": [{ "id": "2026-12", "secret": "<base64url>" }, …] }`, newest
 * first, 1–16 keys, each id 1–32 characters of `[A-Za-z0-9_-]` and each secret at least 32
 * bytes once decoded. Unknown fields are refused.
 * @throws TypeError naming the flag and the key's index (never a secret) on a bad file.
 */
export function loadSealingKeys(path: string): SealingKey[] {
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    throw new TypeError(`${FLAG}: the file cannot be read as JSON`)
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new TypeError(`${FLAG}: must hold an object { "keys": [...] }`)
  }
  const { keys, ...rest } = raw as Record<string, unknown>
  if (Object.keys(rest).length > 0) throw new TypeError(`${FLAG}: unknown field`)
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_SEALING_KEYS) {
    throw new TypeError(`${FLAG}: keys must be a list of 1-${MAX_SEALING_KEYS} keys, newest first`)
  }
  return keys.map((entry: unknown, i): SealingKey => {
    const where = `${FLAG}: keys[${i}]`
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new TypeError(`${where} must be an object { "id", "secret" }`)
    }
    const { id, secret, ...extra } = entry as Record<string, unknown>
    if (Object.keys(extra).length > 0) throw new TypeError(`${where}: unknown field`)
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(id)) {
      throw new TypeError(`${where}.id must be 1-32 characters of [A-Za-z0-9_-]`)
    }
    const bytes =
      typeof secret === 'string' && BASE64URL.test(secret)
        ? Buffer.from(secret, 'base64url')
        : undefined
    if (bytes === undefined || bytes.byteLength < MIN_SECRET_BYTES) {
      throw new TypeError(
        `${where}.secret must be base64url of at least ${MIN_SECRET_BYTES} random bytes`,
      )
    }
    return { id, secret: new Uint8Array(bytes) }
  })
}

/**
 * The server's sealed-handle control: keys from `keysFile`, or with none a random key of this
 * process alone (audited `sealing_keys_ephemeral`, and a warning on stderr: a handle minted
 * here is then refused by every other instance and after a restart).
 * @throws TypeError naming `--sealing-keys-file` on a bad file or key set.
 */
export function openSealedHandles(
  keysFile: string | undefined,
  audit: Audit,
  sink: AuditSink,
): SealedHandles {
  let keys: SealingKey[]
  if (keysFile === undefined) {
    keys = [{ id: 'ephemeral', secret: new Uint8Array(randomBytes(32)) }]
    audit('sealing_keys_ephemeral', {
      warning: `no ${FLAG}: handles are sealed with a random key of this process; a fleet must share a key file`,
    })
  } else {
    keys = loadSealingKeys(keysFile)
  }
  try {
    return sealedHandles({ keys, ttlMs: SEALED_STATE_TTL_MS, audit: sink })
  } catch {
    throw new TypeError(`${FLAG}: the key set is not valid (ids must be distinct)`)
  }
}
