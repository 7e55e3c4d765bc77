// Re-authorization at redemption, through the public API only: real RouteViews built from a real
// registry, a real memory store, nothing private assigned (a test that sets internal state proves
// the helper, not that production supplies that state).
import { describe, expect, it } from 'vitest'
import {
  CONTINUATION_REFUSED,
  type ContinuationAuditEvent,
  createContinuations,
  createMemoryStore,
  createRouteView,
} from '../src/index.js'
import {
  ALL,
  full,
  group,
  heavyPayload,
  klass,
  pub,
  registry,
  target,
  team,
} from './fixtures/routes.js'

function setup() {
  const events: ContinuationAuditEvent[] = []
  const store = createMemoryStore()
  const service = createContinuations({ store, audit: { record: (e) => events.push(e) } })
  const refusals = () =>
    events.flatMap((e) => (e.event === 'continuation_refused' ? [e.reason] : []))
  return { events, store, service, refusals }
}

const OWNER = 'owner-a'

describe('redeem', () => {
  it('serves a token on the route it was minted on', async () => {
    const { service } = setup()
    const t = target(team, group('documents', 'get'))
    const payload = heavyPayload()
    const minted = await service.mint({ ownerKey: OWNER, target: t, payload })
    if (!minted.ok) throw new Error('mint failed')
    const served = await service.redeem(minted.token, {
      ownerKey: OWNER,
      route: team,
      permissions: ALL,
    })
    expect(served).toEqual({ ok: true, payload, target: 'knowledge.documents.get', action: 'get' })
  })

  // Kills named mutant "ceiling-only check (allow/deny skipped)" and "re-authorization always
  // true": team and public share the `read` ceiling; only public's deny list excludes notes.
  it('refuses on a route with the same ceiling whose deny list excludes the target', async () => {
    const { service, events } = setup()
    expect(team.ceiling).toBe(pub.ceiling)
    const t = target(team, group('notes', 'list'))
    const minted = await service.mint({ ownerKey: OWNER, target: t, payload: heavyPayload() })
    if (!minted.ok) throw new Error('mint failed')
    const onTeam = await service.redeem(minted.token, {
      ownerKey: OWNER,
      route: team,
      permissions: ALL,
    })
    expect(onTeam.ok).toBe(true)
    const onPublic = await service.redeem(minted.token, {
      ownerKey: OWNER,
      route: pub,
      permissions: ALL,
    })
    expect(onPublic).toBe(CONTINUATION_REFUSED)
    expect(events.at(-1)).toMatchObject({
      event: 'continuation_refused',
      reason: 'continuation_route_not_authorized',
      route: '/mcp/public',
      target: 'knowledge.notes.list',
      dimension: 'carve_out',
    })
  })

  // Kills "ceiling-only check": an allow list narrows a route without touching its ceiling.
  it('refuses on a route whose allow list leaves the target out', async () => {
    const { service, events } = setup()
    const narrowed = createRouteView({
      name: '/mcp/team',
      registry,
      ceiling: 'read',
      mount: ['knowledge', 'knowledge.**', 'continuation.fetch'],
      allow: ['knowledge', 'knowledge.projects.*', 'continuation.fetch'],
    })
    const t = target(team, group('documents', 'get'))
    const minted = await service.mint({ ownerKey: OWNER, target: t, payload: heavyPayload() })
    if (!minted.ok) throw new Error('mint failed')
    const r = await service.redeem(minted.token, {
      ownerKey: OWNER,
      route: narrowed,
      permissions: ALL,
    })
    expect(r).toBe(CONTINUATION_REFUSED)
    expect(events.at(-1)).toMatchObject({ dimension: 'carve_out' })
  })

  // Kills "re-authorization always true": membership.
  it('refuses on a route that does not mount the target (class dispatcher absent from public)', async () => {
    const { service, events } = setup()
    const t = target(team, klass('stats'))
    const minted = await service.mint({ ownerKey: OWNER, target: t, payload: heavyPayload() })
    if (!minted.ok) throw new Error('mint failed')
    const r = await service.redeem(minted.token, { ownerKey: OWNER, route: pub, permissions: ALL })
    expect(r).toBe(CONTINUATION_REFUSED)
    expect(events.at(-1)).toMatchObject({
      reason: 'continuation_route_not_authorized',
      target: 'admin.stats',
      dimension: 'membership',
    })
  })

  // Kills "re-authorization always true": the ceiling dimension.
  it('refuses a write-tier target on a route whose ceiling is read', async () => {
    const { service, events } = setup()
    const t = target(full, group('notes', 'create'))
    const minted = await service.mint({ ownerKey: OWNER, target: t, payload: heavyPayload() })
    if (!minted.ok) throw new Error('mint failed')
    expect(
      (await service.redeem(minted.token, { ownerKey: OWNER, route: full, permissions: ALL })).ok,
    ).toBe(true)
    const r = await service.redeem(minted.token, { ownerKey: OWNER, route: team, permissions: ALL })
    expect(r).toBe(CONTINUATION_REFUSED)
    expect(events.at(-1)).toMatchObject({ dimension: 'ceiling' })
  })

  it('re-authorizes against the current view: a new view that denies the target refuses an outstanding token', async () => {
    const { service } = setup()
    const before = createRouteView({
      name: '/mcp/team',
      registry,
      ceiling: 'read',
      mount: ['knowledge.**'],
    })
    const after = createRouteView({
      name: '/mcp/team',
      registry,
      ceiling: 'read',
      mount: ['knowledge.**'],
      deny: ['knowledge.documents.*'],
    })
    const minted = await service.mint({
      ownerKey: OWNER,
      target: target(before, group('documents', 'search')),
      payload: heavyPayload(),
    })
    if (!minted.ok) throw new Error('mint failed')
    expect(
      (await service.redeem(minted.token, { ownerKey: OWNER, route: before, permissions: [] })).ok,
    ).toBe(true)
    expect(
      await service.redeem(minted.token, { ownerKey: OWNER, route: after, permissions: [] }),
    ).toBe(CONTINUATION_REFUSED)
  })

  // Kills named mutant "capability lens skipped" (group shape).
  it('refuses after the capability is revoked and serves while it is retained (group dispatcher)', async () => {
    const { service, refusals } = setup()
    const t = target(team, group('notes', 'list'), ['notes:read'])
    const minted = await service.mint({ ownerKey: OWNER, target: t, payload: heavyPayload() })
    if (!minted.ok) throw new Error('mint failed')
    const retained = await service.redeem(minted.token, {
      ownerKey: OWNER,
      route: team,
      permissions: new Set(['notes:read']),
    })
    expect(retained.ok).toBe(true)
    const revoked = await service.redeem(minted.token, {
      ownerKey: OWNER,
      route: team,
      permissions: new Set(),
    })
    expect(revoked).toBe(CONTINUATION_REFUSED)
    expect(refusals()).toEqual(['continuation_capability_revoked'])
  })

  // Kills named mutant "capability lens skipped" (class-dispatcher shape).
  it('refuses after the capability is revoked and serves while it is retained (class dispatcher)', async () => {
    const { service, refusals } = setup()
    const t = target(team, klass('export'), ['export'])
    const minted = await service.mint({ ownerKey: OWNER, target: t, payload: heavyPayload() })
    if (!minted.ok) throw new Error('mint failed')
    const retained = await service.redeem(minted.token, {
      ownerKey: OWNER,
      route: team,
      permissions: ['export'],
    })
    expect(retained).toMatchObject({ ok: true, target: 'admin.export', action: 'export' })
    const revoked = await service.redeem(minted.token, {
      ownerKey: OWNER,
      route: team,
      permissions: [],
    })
    expect(revoked).toBe(CONTINUATION_REFUSED)
    expect(refusals()).toEqual(['continuation_capability_revoked'])
  })

  it('reads missing permissions as holding none, never as skipping the capability lens', async () => {
    const { service, refusals } = setup()
    const minted = await service.mint({
      ownerKey: OWNER,
      target: target(team, klass('export'), ['export']),
      payload: heavyPayload(),
    })
    if (!minted.ok) throw new Error('mint failed')
    const r = await service.redeem(minted.token, {
      ownerKey: OWNER,
      route: team,
      permissions: undefined,
    })
    expect(r).toBe(CONTINUATION_REFUSED)
    expect(refusals()).toEqual(['continuation_capability_revoked'])
  })

  // Kills named mutant "caller-supplied action used at redemption": the forged action names a
  // permitted tool (admin.stats), the recorded one (admin.export) has lost its capability.
  it('ignores an action forged into the redemption call and re-authorizes the recorded one', async () => {
    const { service } = setup()
    const exported = await service.mint({
      ownerKey: OWNER,
      target: target(team, klass('export'), ['export']),
      payload: heavyPayload('export'),
    })
    if (!exported.ok) throw new Error('mint failed')
    const forgedContext = { ownerKey: OWNER, route: team, permissions: [], action: 'stats' }
    expect(await service.redeem(exported.token, forgedContext)).toBe(CONTINUATION_REFUSED)

    const stats = await service.mint({
      ownerKey: OWNER,
      target: target(team, klass('stats')),
      payload: heavyPayload('stats'),
    })
    if (!stats.ok) throw new Error('mint failed')
    const served = await service.redeem(stats.token, {
      ownerKey: OWNER,
      route: team,
      permissions: [],
      action: 'export',
    } as Parameters<typeof service.redeem>[1])
    expect(served).toMatchObject({ ok: true, target: 'admin.stats', action: 'stats' })
  })

  // Kills named mutant "outer dispatcher name bound at mint": the dispatcher `knowledge` is
  // mounted on public, the child knowledge.notes.list is not; binding the outer name would pass.
  it('binds the server-resolved child at mint, so a mounted dispatcher does not carry a denied child', async () => {
    const { service, store } = setup()
    const t = target(team, group('notes', 'list'))
    expect(pub.get('knowledge')).toBeDefined()
    const minted = await service.mint({ ownerKey: OWNER, target: t, payload: heavyPayload() })
    if (!minted.ok) throw new Error('mint failed')
    expect(
      await service.redeem(minted.token, { ownerKey: OWNER, route: pub, permissions: ALL }),
    ).toBe(CONTINUATION_REFUSED)
    // Read off what the store actually holds: the child and the action, not `knowledge`.
    const { hashToken } = await import('../src/index.js')
    const stored = await store.get(hashToken(minted.token))
    const header = JSON.parse(String(stored).slice(0, String(stored).indexOf('\n')))
    expect(header).toMatchObject({ t: 'knowledge.notes.list', a: 'list' })
  })

  it('records the resolved action of a class dispatcher, not the dispatcher', async () => {
    const { service, store } = setup()
    const minted = await service.mint({
      ownerKey: OWNER,
      target: target(full, klass('reindex')),
      payload: 'p',
    })
    if (!minted.ok) throw new Error('mint failed')
    const { hashToken } = await import('../src/index.js')
    const stored = String(await store.get(hashToken(minted.token)))
    expect(JSON.parse(stored.slice(0, stored.indexOf('\n')))).toMatchObject({
      t: 'admin.reindex',
      a: 'reindex',
    })
  })

  it('refuses another owner and serves the minting owner on any route that authorizes the target', async () => {
    const { service, refusals } = setup()
    const minted = await service.mint({
      ownerKey: OWNER,
      target: target(team, group('documents', 'get')),
      payload: heavyPayload(),
    })
    if (!minted.ok) throw new Error('mint failed')
    expect(
      await service.redeem(minted.token, { ownerKey: 'owner-b', route: team, permissions: ALL }),
    ).toBe(CONTINUATION_REFUSED)
    expect(refusals()).toEqual(['continuation_owner_mismatch'])
    // Route identity is not in the owner key: the same owner is served on public too.
    expect(
      (await service.redeem(minted.token, { ownerKey: OWNER, route: pub, permissions: ALL })).ok,
    ).toBe(true)
  })

  it('refuses a token after its TTL and serves it one millisecond before', async () => {
    const events: ContinuationAuditEvent[] = []
    let t = 1_800_000_000_000
    const service = createContinuations({
      store: createMemoryStore(),
      ttlMs: 1000,
      now: () => t,
      audit: { record: (e) => events.push(e) },
    })
    const minted = await service.mint({
      ownerKey: OWNER,
      target: target(team, group('documents', 'get')),
      payload: 'p',
    })
    if (!minted.ok) throw new Error('mint failed')
    expect(minted.expiresAt).toBe(t + 1000)
    t += 999
    expect(
      (await service.redeem(minted.token, { ownerKey: OWNER, route: team, permissions: [] })).ok,
    ).toBe(true)
    t += 1
    expect(
      await service.redeem(minted.token, { ownerKey: OWNER, route: team, permissions: [] }),
    ).toBe(CONTINUATION_REFUSED)
    expect(events.at(-1)).toMatchObject({ reason: 'continuation_expired' })
  })
})
