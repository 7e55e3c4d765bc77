import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import {
  type ContinuationAuditEvent,
  createRouteView,
  type OpenContext,
  SEALED_HANDLE_REFUSAL_REASONS,
  SEALED_HANDLE_REFUSED,
  type SealedHandleRefusalReason,
  type SealedHandlesOptions,
  sealedHandles,
} from '../src/index.js'
import { ALL, group, klass, manualClock, pub, registry, target, team } from './fixtures/routes.js'

const keyA = { id: 'k2026a', secret: randomBytes(32) }
const keyB = { id: 'k2026b', secret: randomBytes(32) }
const ARGS = { resource: 'documents', action: 'get', id: 'd-1', tags: ['a', 'b'] }

function setup(options: Partial<SealedHandlesOptions> = {}) {
  const clock = manualClock()
  const events: ContinuationAuditEvent[] = []
  const handles = sealedHandles({
    keys: [keyA],
    now: clock.now,
    audit: { record: (e) => events.push(e) },
    ...options,
  })
  return { clock, events, handles }
}

function sealOne(h: ReturnType<typeof setup>['handles'], state = 'server-state-1') {
  const r = h.seal({
    kind: 'requestState',
    state,
    principal: 'cred-1',
    route: team,
    target: target(team, group('documents', 'get')),
    arguments: ARGS,
  })
  if (!r.ok) throw new Error('seal failed')
  return r
}

const ctx = (over: Partial<OpenContext> = {}): OpenContext => ({
  kind: 'requestState',
  principal: 'cred-1',
  route: team,
  permissions: ALL,
  call: { tool: 'knowledge.documents.get', arguments: ARGS },
  ...over,
})

const reasons = (events: ContinuationAuditEvent[]) =>
  events.flatMap((e) => (e.event === 'sealed_handle_refused' ? [e.reason] : []))

describe('sealedHandles', () => {
  it('opens a handle it sealed and gives back the server state, with arguments in any key order', async () => {
    const { handles } = setup()
    const { handle } = sealOne(handles)
    const reordered = { tags: ['a', 'b'], id: 'd-1', action: 'get', resource: 'documents' }
    const opened = await handles.open(
      handle,
      ctx({ call: { tool: 'knowledge.documents.get', arguments: reordered } }),
    )
    expect(opened).toMatchObject({
      ok: true,
      state: 'server-state-1',
      target: 'knowledge.documents.get',
    })
  })

  it('opens on another instance that holds the same key set, with no shared store', async () => {
    const a = setup()
    const b = setup()
    const { handle } = sealOne(a.handles)
    expect((await b.handles.open(handle, ctx())).ok).toBe(true)
  })

  it('refuses a handle at its expiry and opens it one millisecond before', async () => {
    const { handles, clock, events } = setup({ ttlMs: 1000 })
    const { handle } = sealOne(handles)
    clock.advance(999)
    expect((await handles.open(handle, ctx())).ok).toBe(true)
    clock.advance(1)
    expect(await handles.open(handle, ctx())).toBe(SEALED_HANDLE_REFUSED)
    expect(reasons(events)).toEqual(['handle_expired'])
  })

  it('signs with the first key and verifies with every listed key across a rotation', async () => {
    const before = setup({ keys: [keyA] })
    const old = sealOne(before.handles).handle
    const during = setup({ keys: [keyB, keyA] })
    const fresh = sealOne(during.handles).handle
    expect(old.split('.')[1]).toBe('k2026a')
    expect(fresh.split('.')[1]).toBe('k2026b')
    expect((await during.handles.open(old, ctx())).ok).toBe(true)
    expect((await during.handles.open(fresh, ctx())).ok).toBe(true)
    const after = setup({ keys: [keyB] })
    expect((await after.handles.open(fresh, ctx())).ok).toBe(true)
    expect(await after.handles.open(old, ctx())).toBe(SEALED_HANDLE_REFUSED)
    expect(reasons(after.events)).toEqual(['handle_unknown_key'])
  })

  it('refuses a handle signed by a key with a listed id but another secret (bad MAC)', async () => {
    const impostor = setup({ keys: [{ id: keyA.id, secret: randomBytes(32) }] })
    const { handle } = sealOne(impostor.handles)
    const { handles, events } = setup()
    expect(await handles.open(handle, ctx())).toBe(SEALED_HANDLE_REFUSED)
    expect(reasons(events)).toEqual(['handle_bad_mac'])
  })

  it('refuses another principal, route, tool, argument set and kind, each with its own audit reason', async () => {
    const { handles, events } = setup()
    const { handle } = sealOne(handles)
    const cases: [Partial<OpenContext>, SealedHandleRefusalReason][] = [
      [{ principal: 'cred-2' }, 'handle_principal_mismatch'],
      [{ route: pub }, 'handle_route_mismatch'],
      [{ call: { tool: 'knowledge.documents.search', arguments: ARGS } }, 'handle_tool_mismatch'],
      [
        { call: { tool: 'knowledge.documents.get', arguments: { ...ARGS, id: 'd-2' } } },
        'handle_arguments_mismatch',
      ],
      [
        { call: { tool: 'knowledge.documents.get', arguments: undefined } },
        'handle_arguments_mismatch',
      ],
      [{ kind: 'task', call: undefined }, 'handle_kind_mismatch'],
    ]
    for (const [over] of cases)
      expect(await handles.open(handle, ctx(over))).toBe(SEALED_HANDLE_REFUSED)
    expect(reasons(events)).toEqual(cases.map(([, reason]) => reason))
    expect((await handles.open(handle, ctx())).ok).toBe(true)
  })

  it('re-authorizes the recorded tool against the current view of the route, capability included', async () => {
    const { handles, events } = setup()
    const r = handles.seal({
      kind: 'task',
      state: 'task-17',
      principal: 'cred-1',
      route: team,
      target: target(team, klass('export')),
      arguments: { action: 'export' },
    })
    if (!r.ok) throw new Error('seal failed')
    const task = (over: Partial<OpenContext>) => ctx({ kind: 'task', call: undefined, ...over })
    expect(await handles.open(r.handle, task({ permissions: new Set(['notes:read']) }))).toBe(
      SEALED_HANDLE_REFUSED,
    )
    // A new view of the same route (same name) that no longer mounts the admin class.
    const narrowed = createRouteView({
      name: '/mcp/team',
      registry,
      ceiling: 'read',
      mount: ['knowledge', 'knowledge.**', 'continuation.fetch'],
    })
    expect(await handles.open(r.handle, task({ route: narrowed }))).toBe(SEALED_HANDLE_REFUSED)
    expect(reasons(events)).toEqual(['handle_capability_revoked', 'handle_route_not_authorized'])
    expect(await handles.open(r.handle, task({}))).toMatchObject({
      ok: true,
      state: 'task-17',
      kind: 'task',
    })
  })

  it('refuses a value over maxHandleLength before decoding it, and malformed values of every shape', async () => {
    const { handles, events } = setup({ maxHandleLength: 2048 })
    const { handle } = sealOne(handles)
    const long = `${handle}${'A'.repeat(2048)}`
    const shapes: unknown[] = [
      long,
      '',
      'tgs1',
      `${handle}.x`,
      42,
      null,
      { handle },
      handle.replace('tgs1', 'tgs2'),
    ]
    for (const shape of shapes) expect(await handles.open(shape, ctx())).toBe(SEALED_HANDLE_REFUSED)
    expect(reasons(events)).toEqual([
      'handle_too_long',
      ...Array.from({ length: shapes.length - 1 }, () => 'handle_malformed'),
    ])
  })

  it('answers every refusal reason with the same frozen object, byte for byte', async () => {
    let revoke: 'no' | 'yes' | 'down' = 'no'
    const { handles, events, clock } = setup({
      maxHandleLength: 4096,
      revocation: {
        isRevoked: () => {
          if (revoke === 'down') throw new Error('redis down')
          return revoke === 'yes'
        },
      },
    })
    const { handle } = sealOne(handles)
    const other = setup({ keys: [keyB] }).handles
    const foreignKey = sealOne(other).handle
    const tampered = `${handle.slice(0, -2)}${handle.endsWith('AA') ? 'BB' : 'AA'}`
    const answers: unknown[] = []
    const push = async (value: unknown, over: Partial<OpenContext> = {}) =>
      answers.push(await handles.open(value, ctx(over)))
    await push('x'.repeat(5000))
    await push('not a handle')
    await push(foreignKey)
    await push(tampered)
    await push(handle, { kind: 'task', call: undefined })
    await push(handle, { principal: 'cred-2' })
    await push(handle, { route: pub })
    await push(handle, { call: { tool: 'knowledge.documents.search', arguments: ARGS } })
    await push(handle, { call: { tool: 'knowledge.documents.get', arguments: {} } })
    await push(handle, {
      route: createRouteView({ name: '/mcp/team', registry, ceiling: 'read', mount: ['admin'] }),
    })
    const capHandle = handles.seal({
      kind: 'requestState',
      state: 's',
      principal: 'cred-1',
      route: team,
      target: target(team, group('notes', 'list')),
      arguments: ARGS,
    })
    if (!capHandle.ok) throw new Error('seal failed')
    await push(capHandle.handle, {
      permissions: [],
      call: { tool: 'knowledge.notes.list', arguments: ARGS },
    })
    revoke = 'yes'
    await push(handle)
    revoke = 'down'
    await push(handle)
    revoke = 'no'
    clock.advance(10 * 60 * 1000)
    await push(handle)
    expect(new Set(reasons(events))).toEqual(new Set(SEALED_HANDLE_REFUSAL_REASONS))
    for (const answer of answers) {
      expect(answer).toBe(SEALED_HANDLE_REFUSED)
      expect(JSON.stringify(answer)).toBe(JSON.stringify(SEALED_HANDLE_REFUSED))
    }
    expect(
      Object.isFrozen(SEALED_HANDLE_REFUSED) && Object.isFrozen(SEALED_HANDLE_REFUSED.error),
    ).toBe(true)
  })

  it('keeps secrets out of the control, its options and its audit events', async () => {
    const { handles, events } = setup({ keys: [keyB, keyA] })
    const { handle } = sealOne(handles, 'STATE-MARKER')
    await handles.open(handle, ctx())
    await handles.open(handle, ctx({ principal: 'cred-2' }))
    const seen = [
      inspect(handles, { depth: 10 }),
      JSON.stringify(handles),
      JSON.stringify(events),
    ].join('\n')
    for (const key of [keyA, keyB]) {
      const secret = Buffer.from(key.secret)
      for (const form of [
        secret.toString('hex'),
        secret.toString('base64'),
        secret.toString('base64url'),
      ]) {
        expect(seen).not.toContain(form)
      }
    }
    expect(seen).not.toContain('STATE-MARKER')
    expect(seen).not.toContain(handle)
    expect(seen).not.toContain('cred-1')
    expect(handles.options.keyIds).toEqual(['k2026b', 'k2026a'])
  })

  it('copies secrets at construction, so a later change to the caller’s buffer changes nothing', async () => {
    const secret = randomBytes(32)
    const { handles } = setup({ keys: [{ id: 'k1', secret }] })
    const { handle } = sealOne(handles)
    secret.fill(0)
    expect((await handles.open(handle, ctx())).ok).toBe(true)
  })

  it('fails to seal a state whose handle would pass maxHandleLength, with the limit', () => {
    const { handles, events } = setup({ maxHandleLength: 1024 })
    const args = {
      kind: 'requestState',
      principal: 'p',
      route: team,
      target: target(team, group('documents', 'get')),
    } as const
    expect(handles.seal({ ...args, state: 'x'.repeat(1025) })).toEqual({
      ok: false,
      error: { code: 'ERR_SEALED_HANDLE_TOO_LARGE', limit: 1024 },
    })
    expect(handles.seal({ ...args, state: 'x'.repeat(700) })).toEqual({
      ok: false,
      error: { code: 'ERR_SEALED_HANDLE_TOO_LARGE', limit: 1024 },
    })
    expect(handles.seal({ ...args, state: 'x'.repeat(100) }).ok).toBe(true)
    expect(events.filter((e) => e.event === 'sealed_handle_seal_failed')).toHaveLength(2)
  })

  it('fails to seal arguments nested past 64 containers with ERR_SEALED_HANDLE_UNSEALABLE', () => {
    const { handles } = setup()
    let deep: unknown = 1
    for (let i = 0; i < 65; i++) deep = [deep]
    const r = handles.seal({
      kind: 'requestState',
      state: 's',
      principal: 'p',
      route: team,
      target: target(team, group('documents', 'get')),
      arguments: deep,
    })
    expect(r).toEqual({ ok: false, error: { code: 'ERR_SEALED_HANDLE_UNSEALABLE' } })
  })

  it('throws a TypeError at construction on bad keys and options, naming no secret', () => {
    const bad: unknown[] = [
      {},
      { keys: [] },
      { keys: [{ id: 'k', secret: randomBytes(31) }] },
      { keys: [{ id: 'bad id', secret: randomBytes(32) }] },
      { keys: [keyA, { ...keyB, id: keyA.id }] },
      { keys: [{ id: 'k', secret: 'a string secret of enough characters....' }] },
      { keys: Array.from({ length: 17 }, (_, i) => ({ id: `k${i}`, secret: randomBytes(32) })) },
      { keys: [keyA], ttlMs: 0 },
      { keys: [keyA], maxHandleLength: 1.5 },
      { keys: [keyA], audit: {} },
      { keys: [keyA], revocation: { isRevoked: 1 } },
      { keys: [keyA], ttl: 5 },
    ]
    for (const options of bad) {
      expect(() => sealedHandles(options as SealedHandlesOptions)).toThrow(TypeError)
    }
  })

  it('throws a TypeError when sealing with a look-alike target or route, or a bad principal', () => {
    const { handles } = setup()
    const real = target(team, group('documents', 'get'))
    const base = {
      kind: 'requestState',
      state: 's',
      principal: 'p',
      route: team,
      target: real,
    } as const
    expect(() => handles.seal({ ...base, target: { ...real } })).toThrow(TypeError)
    expect(() => handles.seal({ ...base, route: { ...team } })).toThrow(TypeError)
    expect(() => handles.seal({ ...base, principal: '' })).toThrow(TypeError)
    expect(() => handles.seal({ ...base, kind: 'other' as never })).toThrow(TypeError)
  })
})
