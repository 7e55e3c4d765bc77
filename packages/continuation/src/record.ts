// The stored form of a continuation (format v1): one JSON header line, then the payload as is
// (no JSON escaping of a 64 KiB+ payload).
//
//   {"v":1,"o":"<sha256 hex of owner key>","t":"<resolved target>","a":"<action>"|null,"e":<ms>}\n<payload>
//
// An entry whose header lacks `t` (written before targets were recorded) is kept readable so
// redemption can refuse it as `continuation_target_unrecorded` rather than as garbage.

import { createHash, timingSafeEqual } from 'node:crypto'
import { isToolName } from './names.js'

/** The decoded header and payload of a stored continuation. */
export interface ContinuationRecord {
  readonly ownerHash: string
  readonly target: string | undefined
  readonly action: string | undefined
  readonly expiresAt: number
  readonly payload: string
}

const MAX_HEADER_CHARS = 2048
const HEX64 = /^[0-9a-f]{64}$/

/** SHA-256 of the owner key, hex: what the record holds instead of the key. */
export function hashOwnerKey(ownerKey: string): string {
  return createHash('sha256').update(ownerKey, 'utf8').digest('hex')
}

/** Constant-time comparison of two owner hashes. */
export function sameOwner(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8')
  const y = Buffer.from(b, 'utf8')
  return x.length === y.length && timingSafeEqual(x, y)
}

/** Encodes a record. */
export function encodeRecord(record: ContinuationRecord): string {
  const header = JSON.stringify({
    v: 1,
    o: record.ownerHash,
    t: record.target ?? null,
    a: record.action ?? null,
    e: record.expiresAt,
  })
  return `${header}\n${record.payload}`
}

/** Decodes a record; `undefined` when the stored text is not a v1 record. */
export function decodeRecord(text: string): ContinuationRecord | undefined {
  const nl = text.indexOf('\n')
  if (nl <= 0 || nl > MAX_HEADER_CHARS) return undefined
  let header: unknown
  try {
    header = JSON.parse(text.slice(0, nl))
  } catch {
    return undefined
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) return undefined
  const h = header as Record<string, unknown>
  if (h.v !== 1 || typeof h.o !== 'string' || !HEX64.test(h.o)) return undefined
  if (typeof h.e !== 'number' || !Number.isFinite(h.e)) return undefined
  const target = h.t === undefined || h.t === null ? undefined : h.t
  if (target !== undefined && !isToolName(target)) return undefined
  const action = h.a === undefined || h.a === null ? undefined : h.a
  if (action !== undefined && typeof action !== 'string') return undefined
  return {
    ownerHash: h.o,
    target,
    action,
    expiresAt: h.e,
    payload: text.slice(nl + 1),
  }
}
