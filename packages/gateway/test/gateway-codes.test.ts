// The gateway's JSON-RPC error numbers: a client tells refusals apart by number before it reads
// `data.code`, so one number belongs to one family of codes (the request-state refusals share
// -32016 on purpose), and none sits in -32020…-32099, which the 2026-07-28 revision reserves.
import { describe, expect, it } from 'vitest'
import { GATEWAY_CODES } from '../src/gateway-errors.js'

/** How many leading words all of `codes` share (`ERR_REQUEST_STATE_INVALID`, `…_EXPIRED`: 3). */
function sharedWords(codes: readonly string[]): number {
  const words = codes.map((c) => c.split('_'))
  let n = 0
  while (words.every((w) => w[n] !== undefined && w[n] === words[0]![n])) n++
  return n
}

// The limiter answers -32011 from http-post.ts, outside the table: no table code may take it.
const TAKEN_OUTSIDE_THE_TABLE = [-32011]

describe('GATEWAY_CODES', () => {
  it('gives each JSON-RPC number to one family of codes only (codes sharing a number share three words)', () => {
    const byNumber = new Map<number, string[]>()
    for (const [code, { rpc }] of Object.entries(GATEWAY_CODES)) {
      byNumber.set(rpc, [...(byNumber.get(rpc) ?? []), code])
    }
    const mixed = [...byNumber].filter(([, codes]) => codes.length > 1 && sharedWords(codes) < 3)
    expect(mixed).toEqual([])
    // The check bites: two families on one number, as a merge once made them.
    expect(sharedWords(['ERR_SESSION_ELSEWHERE', 'ERR_REQUEST_STATE_INVALID'])).toBeLessThan(3)
    expect(sharedWords(['ERR_SESSION_QUOTA', 'ERR_SESSION_LIMIT'])).toBeLessThan(3)
  })

  it('keeps clear of the numbers the revision reserves and of the limiter number', () => {
    for (const { rpc } of Object.values(GATEWAY_CODES)) {
      expect(rpc <= -32100 || rpc > -32020).toBe(true)
      expect(TAKEN_OUTSIDE_THE_TABLE).not.toContain(rpc)
    }
  })
})
