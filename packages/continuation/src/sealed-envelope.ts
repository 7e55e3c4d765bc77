// The wire form of a sealed handle (format 1):
//
//   tgs1.<key id>.<payload, base64url>.<HMAC-SHA256 of "tgs1.<key id>.<payload>", base64url>
//
// The payload is JSON: {"k":kind,"j":handle id,"e":expiry ms,"t":target,"p":principal tag,
// "r":route tag,"d":arguments tag,"s":inner state}. Tags are keyed (see sealed-keys.ts), so a
// handle names no principal, route or argument in clear; the target (a tool name the caller
// sent) and the server's inner state are readable, as the server's own `requestState` was.
// A server that puts secrets in its state encrypts them itself.
//
// Reading is ordered so that nothing is decoded before it is authenticated: the length first,
// then the character grammar, then the key id, then the MAC in constant time, and only then
// base64 and JSON.

import { randomBytes } from 'node:crypto'
import { isToolName } from './names.js'
import { type KeyOps, type KeyRing, sameBytes } from './sealed-keys.js'

/** What a handle wraps: a `requestState` or a task id. */
export type SealedKind = 'requestState' | 'task'

/** The authenticated content of a handle. */
export interface EnvelopeBody {
  readonly kind: SealedKind
  readonly handleId: string
  readonly expiresAt: number
  readonly target: string
  readonly principalTag: string
  readonly routeTag: string
  readonly argumentsTag: string
  readonly state: string
}

/** Why a handle could not be read; audit only. */
export type EnvelopeFailure =
  | 'handle_too_long'
  | 'handle_malformed'
  | 'handle_unknown_key'
  | 'handle_bad_mac'

/** Checks a MAC: the production check is constant-time equality. */
export type MacCheck = (expected: Uint8Array, presented: Uint8Array) => boolean

const PREFIX = 'tgs1'
const KIND_CODE: Readonly<Record<SealedKind, string>> = { requestState: 's', task: 't' }
const ENVELOPE = /^tgs1\.([A-Za-z0-9_-]{1,32})\.([A-Za-z0-9_-]{1,})\.([A-Za-z0-9_-]{43})$/
const TAG = /^[A-Za-z0-9_-]{22}$/

/** A new handle id: 128 bits from the CSPRNG, base64url. Audit events name a handle by it. */
export function newHandleId(): string {
  return randomBytes(16).toString('base64url')
}

/** Encodes and MACs `body` under `key`. */
export function writeEnvelope(key: KeyOps, body: EnvelopeBody): string {
  const payload = Buffer.from(
    JSON.stringify({
      k: KIND_CODE[body.kind],
      j: body.handleId,
      e: body.expiresAt,
      t: body.target,
      p: body.principalTag,
      r: body.routeTag,
      d: body.argumentsTag,
      s: body.state,
    }),
    'utf8',
  ).toString('base64url')
  const signed = `${PREFIX}.${key.id}.${payload}`
  return `${signed}.${key.mac(signed).toString('base64url')}`
}

/** The outcome of {@link readEnvelope}. */
export type EnvelopeRead =
  | { readonly ok: true; readonly key: KeyOps; readonly body: EnvelopeBody }
  | { readonly ok: false; readonly reason: EnvelopeFailure; readonly keyId?: string }

/**
 * Reads a handle: length, grammar, key id, MAC (through `macCheck`), then the payload. Never
 * throws for any input.
 */
export function readEnvelope(
  text: unknown,
  ring: KeyRing,
  maxLength: number,
  macCheck: MacCheck,
): EnvelopeRead {
  if (typeof text !== 'string') return { ok: false, reason: 'handle_malformed' }
  // Before any regex, base64 or JSON work: an over-long value costs one comparison.
  if (text.length > maxLength) return { ok: false, reason: 'handle_too_long' }
  const match = ENVELOPE.exec(text)
  if (match === null) return { ok: false, reason: 'handle_malformed' }
  const [, keyId, payload, mac] = match as unknown as [string, string, string, string]
  const key = ring.get(keyId)
  if (key === undefined) return { ok: false, reason: 'handle_unknown_key', keyId }
  const signed = text.slice(0, text.length - mac.length - 1)
  // The MAC is compared as text, not as decoded bytes: 43 base64url characters carry 258 bits
  // for 256, so two spellings decode alike and a changed last character would still verify.
  const expected = Buffer.from(key.mac(signed).toString('base64url'), 'latin1')
  if (!macCheck(expected, Buffer.from(mac, 'latin1'))) {
    return { ok: false, reason: 'handle_bad_mac', keyId }
  }
  const body = decodeBody(payload)
  if (body === undefined) return { ok: false, reason: 'handle_malformed', keyId }
  return { ok: true, key, body }
}

/** The production MAC check: constant-time equality. */
export const constantTimeMacCheck: MacCheck = sameBytes

function decodeBody(payload: string): EnvelopeBody | undefined {
  let raw: unknown
  try {
    raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined
  const b = raw as Record<string, unknown>
  const kind = b.k === 's' ? 'requestState' : b.k === 't' ? 'task' : undefined
  if (kind === undefined) return undefined
  if (typeof b.j !== 'string' || !TAG.test(b.j)) return undefined
  if (typeof b.e !== 'number' || !Number.isSafeInteger(b.e)) return undefined
  if (!isToolName(b.t)) return undefined
  for (const tag of [b.p, b.r, b.d]) if (typeof tag !== 'string' || !TAG.test(tag)) return undefined
  if (typeof b.s !== 'string') return undefined
  return {
    kind,
    handleId: b.j,
    expiresAt: b.e,
    target: b.t,
    principalTag: b.p as string,
    routeTag: b.r as string,
    argumentsTag: b.d as string,
    state: b.s,
  }
}

/** Deepest arguments value {@link canonicalJson} encodes (the MCP structure limit is 64). */
export const MAX_CANONICAL_DEPTH = 64

/**
 * A canonical JSON text of a parsed JSON value: object keys sorted by UTF-16 code units, no
 * spacing, so two encodings of the same arguments (key order, whitespace) give one digest.
 * `undefined` for a value deeper than {@link MAX_CANONICAL_DEPTH} or holding something that is
 * not JSON (a caller's arguments come from `JSON.parse`, so only a server bug reaches that).
 */
export function canonicalJson(value: unknown, depth = 0): string | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    return JSON.stringify(value)
  }
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : undefined
  if (typeof value !== 'object' || depth >= MAX_CANONICAL_DEPTH) return undefined
  const parts: string[] = []
  if (Array.isArray(value)) {
    for (const item of value) {
      const text = canonicalJson(item, depth + 1)
      if (text === undefined) return undefined
      parts.push(text)
    }
    return `[${parts.join(',')}]`
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return undefined
  for (const key of Object.keys(value).sort()) {
    const text = canonicalJson((value as Record<string, unknown>)[key], depth + 1)
    if (text === undefined) return undefined
    parts.push(`${JSON.stringify(key)}:${text}`)
  }
  return `{${parts.join(',')}}`
}
