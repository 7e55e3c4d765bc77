// Continuations need no session: the owner key is the principal. Two services over one store
// stand for two instances behind a load balancer with no sticky routing (a 2026-07-28 client
// has no session id to route on); a token minted on one is redeemed on the other by the same
// principal, and refused for another principal, with nothing but the owner key to go on.
import { describe, expect, it } from 'vitest'
import { CONTINUATION_REFUSED, createContinuations, createMemoryStore } from '../src/index.js'
import { ALL, group, heavyPayload, target, team } from './fixtures/routes.js'

describe('createContinuations', () => {
  it('redeems on another instance by the same principal, with no session, and refuses another principal', async () => {
    const store = createMemoryStore()
    const a = createContinuations({ store })
    const b = createContinuations({ store })
    const principal = 'sha256:principal-of-cred-1'
    const minted = await a.mint({
      ownerKey: principal,
      target: target(team, group('documents', 'get')),
      payload: heavyPayload(),
    })
    if (!minted.ok) throw new Error('mint failed')
    const served = await b.redeem(minted.token, {
      ownerKey: principal,
      route: team,
      permissions: ALL,
    })
    expect(served).toMatchObject({ ok: true, target: 'knowledge.documents.get' })
    const other = await b.redeem(minted.token, {
      ownerKey: 'sha256:another',
      route: team,
      permissions: ALL,
    })
    expect(other).toBe(CONTINUATION_REFUSED)
  })
})
