// Malformed stored records (a store written by something else, a corrupted or tampered entry):
// each is refused with the one outcome and audited as continuation_record_invalid, never served,
// never thrown, and never mistaken for a later check (owner, expiry, route). Records are written
// into a real memory store through its public interface.
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  CONTINUATION_REFUSED,
  type ContinuationAuditEvent,
  createContinuations,
  createMemoryStore,
  createToken,
  hashToken,
} from '../src/index.js'
import { ALL, team } from './fixtures/routes.js'

const OWNER = 'owner-record'
const NOW = 1_800_000_000_000
const ownerHash = createHash('sha256').update(OWNER).digest('hex')
const good = { v: 1, o: ownerHash, t: 'knowledge.documents.get', a: 'get', e: NOW + 60_000 }

async function redeemStored(text: string) {
  const events: ContinuationAuditEvent[] = []
  const store = createMemoryStore()
  const service = createContinuations({
    store,
    audit: { record: (e) => events.push(e) },
    now: () => NOW,
  })
  const token = createToken()
  await store.set(hashToken(token), text, 60_000)
  const result = await service.redeem(token, { ownerKey: OWNER, route: team, permissions: ALL })
  const last = events.at(-1)
  const reason = last?.event === 'continuation_refused' ? last.reason : last?.event
  return { result, reason }
}

const withHeader = (header: unknown, payload = 'payload') =>
  `${typeof header === 'string' ? header : JSON.stringify(header)}\n${payload}`

describe('redeem of a stored record', () => {
  it('serves a well-formed v1 record with its payload byte for byte and its recorded action', async () => {
    const { result, reason } = await redeemStored(withHeader(good, 'line one\nline two é'))
    expect(result).toEqual({
      ok: true,
      payload: 'line one\nline two é',
      target: 'knowledge.documents.get',
      action: 'get',
    })
    expect(reason).toBe('continuation_served')
  })

  it('serves a record whose action is null with no action', async () => {
    const { result } = await redeemStored(withHeader({ ...good, a: null }))
    expect(result).toMatchObject({ ok: true, action: undefined })
  })

  it('refuses a header that is not a v1 object: wrong version, null, an array, a number', async () => {
    for (const header of [{ ...good, v: 2 }, { ...good, v: '1' }, 'null', '[1]', '7']) {
      const { result, reason } = await redeemStored(withHeader(header))
      expect(result).toBe(CONTINUATION_REFUSED)
      expect(reason).toBe('continuation_record_invalid')
    }
  })

  it('refuses text with no header line, an empty header or a header that is not JSON', async () => {
    for (const text of ['no newline at all', '\npayload', `{"v":1,\npayload`]) {
      const { result, reason } = await redeemStored(text)
      expect(result).toBe(CONTINUATION_REFUSED)
      expect(reason).toBe('continuation_record_invalid')
    }
  })

  it('refuses an owner hash that is not 64 lower-case hex digits as invalid, not as an owner mismatch', async () => {
    for (const o of [
      ownerHash.toUpperCase(),
      ownerHash.slice(1),
      `x${ownerHash}`,
      `${ownerHash}0`,
      [ownerHash],
      'zz',
      42,
      undefined,
    ]) {
      const { result, reason } = await redeemStored(withHeader({ ...good, o }))
      expect(result).toBe(CONTINUATION_REFUSED)
      expect(reason).toBe('continuation_record_invalid')
    }
  })

  it('refuses an expiry that is not a finite number, even one far in the future', async () => {
    for (const header of [
      { ...good, e: String(NOW + 60_000) },
      { ...good, e: null },
      JSON.stringify(good).replace(/"e":\d+/, '"e":1e999'),
    ]) {
      const { result, reason } = await redeemStored(withHeader(header))
      expect(result).toBe(CONTINUATION_REFUSED)
      expect(reason).toBe('continuation_record_invalid')
    }
  })

  it('refuses a target outside the name grammar as invalid, not as a route refusal', async () => {
    for (const t of ['Knowledge.Documents.Get', 'knowledge..get', 42, ['knowledge']]) {
      const { result, reason } = await redeemStored(withHeader({ ...good, t }))
      expect(result).toBe(CONTINUATION_REFUSED)
      expect(reason).toBe('continuation_record_invalid')
    }
  })

  it('refuses an action that is not a string', async () => {
    for (const a of [42, { action: 'get' }, true]) {
      const { result, reason } = await redeemStored(withHeader({ ...good, a }))
      expect(result).toBe(CONTINUATION_REFUSED)
      expect(reason).toBe('continuation_record_invalid')
    }
  })

  it('reads a header of 2,048 characters and refuses one of 2,049', async () => {
    const padded = (length: number) => {
      const base = JSON.stringify({ ...good, x: '' })
      return JSON.stringify({ ...good, x: 'p'.repeat(length - base.length) })
    }
    expect(padded(2048)).toHaveLength(2048)
    const atLimit = await redeemStored(withHeader(padded(2048)))
    expect(atLimit.result).toMatchObject({ ok: true, payload: 'payload' })
    const over = await redeemStored(withHeader(padded(2049)))
    expect(over.result).toBe(CONTINUATION_REFUSED)
    expect(over.reason).toBe('continuation_record_invalid')
  })
})
