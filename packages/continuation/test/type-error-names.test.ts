// Every programming-error `TypeError` of the package names what it refuses — the option, the
// argument, or the index of the entry — and never echoes the value it was given. The README
// promises "a `TypeError` naming it" and the house style wants a message "that names the option
// to raise", so the name is asserted (a pattern), never the prose around it. Written for the
// mutation run's survivors: an emptied message or option name passed every type-only assertion.
import { describe, expect, it } from 'vitest'
import {
  authorizeOnRoute,
  type ContinuationStore,
  ContinuationStoreError,
  compilePattern,
  createContinuations,
  createMemoryStore,
  createRouteView,
  createToolRegistry,
  pinoAuditSink,
  type RouteView,
  resolveScoped,
  tierRank,
} from '../src/index.js'
import { createRedisStore } from '../src/redis.js'
import { ALL, group, registry, target, team } from './fixtures/routes.js'

const SECRET = 'SECRET-value-never-echoed'

/** The error `run` throws (synchronously or as a rejection), for pattern assertions. */
async function thrown(run: () => unknown): Promise<Error> {
  try {
    await run()
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError)
    return error as Error
  }
  throw new Error('expected a TypeError')
}

const redisStub = {
  get: async () => null,
  set: async () => 'OK',
  del: async () => 1,
  eval: async () => 'OK',
}

describe('createContinuations', () => {
  const memory = createMemoryStore()

  it('names the missing store method, each of get, set and delete', () => {
    for (const method of ['get', 'set', 'delete'] as const) {
      const store: Record<string, unknown> = { ...memory }
      delete store[method]
      expect(() => createContinuations({ store: store as unknown as ContinuationStore })).toThrow(
        new RegExp(`^store\\.${method} `),
      )
    }
  })

  it('names each limit that is not a positive safe integer, and the clock', () => {
    for (const name of ['thresholdBytes', 'ttlMs', 'maxPayloadBytes'] as const) {
      expect(() => createContinuations({ [name]: 0 })).toThrow(new RegExp(`\\b${name}\\b`))
    }
    expect(() => createContinuations({ now: SECRET as never })).toThrow(/\bnow\b/)
    expect(() => createContinuations({ now: SECRET as never })).not.toThrow(SECRET)
  })
})

describe('mint', () => {
  const service = createContinuations()
  const real = target(team, group('documents', 'get'))

  it('names the target, the owner key, the quota key and the payload it refuses', async () => {
    expect((await thrown(() => service.mint(undefined as never))).message).toMatch(/^target /)
    expect(
      (await thrown(() => service.mint({ ownerKey: 'o', target: { ...real }, payload: 'p' })))
        .message,
    ).toMatch(/^target .*resolveScoped\(\)/)
    for (const ownerKey of ['', 'k'.repeat(1025), 42]) {
      const error = await thrown(() =>
        service.mint({ ownerKey: ownerKey as string, target: real, payload: 'p' }),
      )
      expect(error.message).toMatch(/^ownerKey /)
    }
    const error = await thrown(() =>
      service.mint({ ownerKey: 'o', target: real, payload: {} as never }),
    )
    expect(error.message).toMatch(/^payload /)
  })

  it('accepts a quota key of 1–1,024 characters and names quotaKey when it refuses one', async () => {
    for (const quotaKey of ['q', 'q'.repeat(1024)]) {
      expect((await service.mint({ ownerKey: 'o', quotaKey, target: real, payload: 'p' })).ok).toBe(
        true,
      )
    }
    for (const quotaKey of ['', 'q'.repeat(1025), 42]) {
      const error = await thrown(() =>
        service.mint({ ownerKey: 'o', quotaKey: quotaKey as string, target: real, payload: 'p' }),
      )
      expect(error.message).toMatch(/^quotaKey /)
    }
  })
})

describe('redeem', () => {
  it('names createRouteView() for a missing context, a missing route and a look-alike', async () => {
    const service = createContinuations()
    for (const context of [
      undefined,
      {},
      { ownerKey: 'o', route: { ...team }, permissions: ALL },
    ]) {
      const error = await thrown(() =>
        service.redeem('A'.repeat(22), context as unknown as Parameters<typeof service.redeem>[1]),
      )
      expect(error.message).toMatch(/^route .*createRouteView\(\)/)
    }
  })
})

describe('authorizeOnRoute', () => {
  it('names createRouteView() for a look-alike view', async () => {
    const error = await thrown(() => authorizeOnRoute({ ...team } as RouteView, 'admin.stats', ALL))
    expect(error.message).toMatch(/^route .*createRouteView\(\)/)
  })
})

describe('resolveScoped', () => {
  it('names createRouteView() for a view it did not make', async () => {
    const error = await thrown(() =>
      resolveScoped({ ...team } as RouteView, group('documents', 'get'), ALL),
    )
    expect(error.message).toMatch(/^route .*createRouteView\(\)/)
  })
})

describe('createMemoryStore', () => {
  it('names each limit that is not a positive safe integer, each quota, and the clock', () => {
    for (const name of [
      'maxEntries',
      'maxBytes',
      'maxRecordBytes',
      'maxEntriesPerOwner',
      'maxBytesPerOwner',
    ] as const) {
      expect(() => createMemoryStore({ [name]: 0 })).toThrow(new RegExp(`^${name} `))
    }
    expect(() => createMemoryStore({ now: 1 as never })).toThrow(/^now /)
  })

  it('names the per-owner quota above its global cap and the record cap above either', () => {
    expect(() => createMemoryStore({ maxEntries: 10, maxEntriesPerOwner: 11 })).toThrow(
      /^maxEntriesPerOwner /,
    )
    expect(() => createMemoryStore({ maxBytes: 10, maxBytesPerOwner: 11 })).toThrow(
      /^maxBytesPerOwner /,
    )
    expect(() => createMemoryStore({ maxBytes: 100, maxRecordBytes: 101 })).toThrow(
      /^maxRecordBytes .*\bmaxBytes$/,
    )
    expect(() => createMemoryStore({ maxBytesPerOwner: 100, maxRecordBytes: 101 })).toThrow(
      /^maxRecordBytes .*\bmaxBytesPerOwner$/,
    )
    // At the cap is allowed.
    expect(createMemoryStore({ maxBytes: 100, maxRecordBytes: 100 })).toBeDefined()
    expect(createMemoryStore({ maxBytesPerOwner: 100, maxRecordBytes: 100 })).toBeDefined()
    // With the byte quota off, the record cap is bound by maxBytes only.
    expect(createMemoryStore({ maxBytesPerOwner: false, maxRecordBytes: 101 })).toBeDefined()
  })

  it('names ttlMs and owner when set() refuses them', async () => {
    const store = createMemoryStore()
    expect((await thrown(() => store.set('k', 'v', 0))).message).toMatch(/^ttlMs /)
    expect((await thrown(() => store.set('k', 'v', 1000, 42 as never))).message).toMatch(/^owner /)
  })
})

describe('createRedisStore', () => {
  it('names the missing client method, each of get, set, del, and eval while a quota is on', () => {
    for (const method of ['get', 'set', 'del'] as const) {
      const client: Record<string, unknown> = { ...redisStub }
      delete client[method]
      expect(() => createRedisStore({ client: client as never })).toThrow(
        new RegExp(`^client\\.${method} `),
      )
    }
    const { eval: _eval, ...noEval } = redisStub
    expect(() => createRedisStore({ client: noEval })).toThrow(/^client\.eval /)
    expect(() => createRedisStore({ client: noEval, maxEntriesPerOwner: false })).toThrow(
      /^client\.eval /,
    )
    expect(() => createRedisStore({ client: noEval, maxBytesPerOwner: false })).toThrow(
      /^client\.eval /,
    )
    expect(
      createRedisStore({ client: noEval, maxEntriesPerOwner: false, maxBytesPerOwner: false }),
    ).toBeDefined()
  })

  it('names the prefix, accepting 256 characters and refusing 257 or a non-string', () => {
    expect(createRedisStore({ client: redisStub, prefix: 'p'.repeat(256) })).toBeDefined()
    expect(createRedisStore({ client: redisStub, prefix: '' })).toBeDefined()
    for (const prefix of ['p'.repeat(257), 42]) {
      expect(() => createRedisStore({ client: redisStub, prefix: prefix as string })).toThrow(
        /^prefix /,
      )
    }
  })

  it('names each limit, each quota, onError, and the record cap above the byte quota', () => {
    for (const name of [
      'maxRecordBytes',
      'maxEntriesPerOwner',
      'maxBytesPerOwner',
      'commandTimeoutMs',
    ] as const) {
      expect(() => createRedisStore({ client: redisStub, [name]: 0 })).toThrow(
        new RegExp(`^${name} `),
      )
    }
    expect(() => createRedisStore({ client: redisStub, onError: 1 as never })).toThrow(/^onError /)
    expect(() =>
      createRedisStore({ client: redisStub, maxBytesPerOwner: 100, maxRecordBytes: 101 }),
    ).toThrow(/^maxRecordBytes .*\bmaxBytesPerOwner$/)
    expect(
      createRedisStore({ client: redisStub, maxBytesPerOwner: 100, maxRecordBytes: 100 }),
    ).toBeDefined()
    // With the byte quota off, the record cap is not bound by it.
    expect(
      createRedisStore({ client: redisStub, maxBytesPerOwner: false, maxRecordBytes: 101 }),
    ).toBeDefined()
  })

  it('names ttlMs and owner when set() refuses them, accepting an owner of 1,024 characters', async () => {
    const store = createRedisStore({ client: redisStub })
    expect((await thrown(() => store.set('k', 'v', 0))).message).toMatch(/^ttlMs /)
    for (const owner of ['o'.repeat(1025), 42]) {
      const error = await thrown(() => store.set('k', 'v', 1000, owner as string))
      expect(error.message).toMatch(/^owner /)
    }
    await expect(store.set('k', 'v', 1000, 'o'.repeat(1024))).resolves.toBeUndefined()
  })
})

describe('createToolRegistry', () => {
  const ok = { name: 'a', tier: 'read' } as const

  it('names the index of the entry it refuses, and its field, never the value', () => {
    const cases: [unknown, RegExp][] = [
      [null, /^tools\[1\] /],
      [SECRET, /^tools\[1\] /],
      [{ name: SECRET, tier: 'read' }, /^tools\[1\]\.name /],
      [{ name: 'b', tier: 'read', capabilities: SECRET }, /^tools\[1\]\.capabilities /],
      [{ name: 'b', tier: 'read', capabilities: [`${SECRET} `] }, /^tools\[1\]\.capabilities /],
      [{ name: 'a', tier: 'read' }, /^tools\[1\]\.name /],
    ]
    for (const [entry, name] of cases) {
      const run = () => createToolRegistry([ok, entry as never])
      expect(run).toThrow(name)
      expect(run).not.toThrow(SECRET)
    }
  })

  it('names the tier it refuses', () => {
    expect(() => createToolRegistry([{ name: 'a', tier: SECRET as never }])).toThrow(/^tier /)
    expect(() => tierRank(SECRET as never)).not.toThrow(SECRET)
  })
})

describe('createRouteView', () => {
  const base = { name: 'r', registry, mount: ['**'], ceiling: 'read' as const }

  it('names the name, the registry, each pattern list and the ceiling it refuses', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: undefined }, /^name /],
      [{ name: '' }, /^name /],
      [{ name: 'r'.repeat(257) }, /^name /],
      [{ registry: undefined }, /^registry .*createToolRegistry\(\)/],
      [{ registry: { names: [] } }, /^registry .*createToolRegistry\(\)/],
      [{ mount: undefined }, /^mount /],
      [{ mount: SECRET }, /^mount /],
      [{ allow: SECRET }, /^allow /],
      [{ deny: SECRET }, /^deny /],
      [{ ceiling: SECRET }, /^ceiling must be one of "read", "write", "admin"$/],
      [{ ceiling: undefined }, /^ceiling must be one of "read", "write", "admin"$/],
    ]
    for (const [change, name] of cases) {
      const run = () => createRouteView({ ...base, ...change } as never)
      expect(run).toThrow(name)
      expect(run).not.toThrow(SECRET)
    }
    expect(() => createRouteView(undefined as never)).toThrow(/^createRouteView: options /)
  })

  it('names the index of a pattern outside the grammar in each list, never its text', () => {
    const bad = 'SECRET.**.x'
    for (const list of ['mount', 'allow', 'deny'] as const) {
      for (const pattern of [bad, '', 42, 'a.b.c.d.e.f.g.h.i']) {
        const run = () => createRouteView({ ...base, [list]: ['**', pattern] } as never)
        expect(run).toThrow(new RegExp(`^${list}\\[1\\] `))
        expect(run).not.toThrow('SECRET')
      }
    }
  })
})

describe('compilePattern', () => {
  it('names the pattern by the label it is given, "pattern" by default', () => {
    for (const source of ['', 'A', 'a.b.c.d.e.f.g.h.i', 42]) {
      expect(() => compilePattern(source as string)).toThrow(/^pattern /)
      expect(() => compilePattern(source as string, 'where')).toThrow(/^where /)
    }
  })
})

describe('pinoAuditSink', () => {
  it('names the logger it refuses: none, a primitive, or one without info() and warn()', () => {
    const noop = () => {}
    for (const logger of [null, undefined, 'logger', { warn: noop }, { info: noop }]) {
      expect(() => pinoAuditSink(logger as never)).toThrow(/^logger /)
    }
  })
})

describe('ContinuationStoreError', () => {
  it('names the option to raise for a full store and a record too large, never a key or value', () => {
    const large = new ContinuationStoreError('ERR_CONTINUATION_TOO_LARGE', { limit: 1 })
    const full = new ContinuationStoreError('ERR_CONTINUATION_STORE_FULL', { limit: 1 })
    const down = new ContinuationStoreError('ERR_CONTINUATION_STORE_UNAVAILABLE')
    expect(large.message).toMatch(/\bmaxRecordBytes\b/)
    expect(full.message).toMatch(/\bmaxEntries\b.*\bmaxBytes\b/)
    expect(down.message).toMatch(/unavailable/i)
    expect(new Set([large.message, full.message, down.message]).size).toBe(3)
  })
})
