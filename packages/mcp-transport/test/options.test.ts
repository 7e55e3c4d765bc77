// The four option resolvers, in-process: what each fills, what each refuses, and that the
// TypeError names the option as the README promises ("a TypeError naming the option"). The
// limits themselves are held on the wire (stdio.test.ts, streamable-http.test.ts,
// result-budget.test.ts); this file holds the resolved values those runs start from.
import { bodyAdmission, callerKeys } from '@tollgate/http-admission'
import { describe, expect, it } from 'vitest'
import { isLoopbackHost } from '../src/http-options.js'
import {
  BOUNDED_STDIO_DEFAULTS,
  createMcpHttpAdmission,
  createResultBudget,
  MCP_HTTP_BODY_BYTES,
  MCP_PROTOCOL_VERSIONS,
  mcpBodyAdmission,
  mcpProtocolEras,
  mcpRouteHead,
  RESULT_BUDGET_OPTIONS,
  resolveBoundedStdioOptions,
  resolveResultBudgetOptions,
  resolveSessionPoolOptions,
  resultBudget,
  SessionPool,
} from '../src/index.js'

const MiB = 1024 * 1024

describe('resolveBoundedStdioOptions', () => {
  it('names the option and the 64 MiB ceiling in its TypeErrors', () => {
    expect(() => resolveBoundedStdioOptions({ maxLineBytes: 64 * MiB + 1 })).toThrow(
      new TypeError('maxLineBytes may not exceed 67108864, got 67108865'),
    )
    expect(() => resolveBoundedStdioOptions({ maxBufferSize: 64 * MiB + 1 })).toThrow(
      new TypeError('maxBufferSize may not exceed 67108864, got 67108865'),
    )
    expect(() => resolveBoundedStdioOptions({ bogus: 1 } as never)).toThrow(
      new TypeError('BoundedStdioServerTransport: unknown option bogus'),
    )
    expect(() => resolveBoundedStdioOptions({ maxLineBytes: 10, maxBufferSize: 11 })).toThrow(
      new TypeError('maxBufferSize and maxLineBytes name the same cap; set one of them'),
    )
    expect(() => resolveBoundedStdioOptions({ maxNodes: 0 })).toThrow(/maxNodes/)
    expect(() => resolveBoundedStdioOptions({ bom: 'keep' } as never)).toThrow(/bom/)
  })

  it('fills every field from the defaults, the scanner byte limit at the line cap', () => {
    expect({ ...resolveBoundedStdioOptions() }).toEqual({
      maxLineBytes: 64 * MiB,
      lineBytesOption: 'maxLineBytes',
      maxNodes: 100_000,
      maxDepth: 64,
      maxBytes: 64 * MiB,
      duplicateKeys: 'refuse',
      protoKeys: 'refuse',
      maxStringBytes: Number.POSITIVE_INFINITY,
      maxNumberLength: Number.POSITIVE_INFINITY,
      bom: 'refuse',
      refusalWindowMs: 10_000,
      oversizedLine: 'end',
    })
    expect(BOUNDED_STDIO_DEFAULTS.maxLineBytes).toBe(64 * MiB)
  })

  it('keeps every option given, a zero depth included', () => {
    const given = {
      maxLineBytes: 64 * MiB,
      maxNodes: 17,
      maxDepth: 0,
      duplicateKeys: 'allow',
      protoKeys: 'allow',
      maxStringBytes: 9,
      maxNumberLength: 8,
      bom: 'strip',
    } as const
    expect({ ...resolveBoundedStdioOptions(given) }).toEqual({
      ...given,
      refusalWindowMs: 10_000,
      oversizedLine: 'end',
      lineBytesOption: 'maxLineBytes',
      maxBytes: 64 * MiB,
    })
  })

  it('takes the cap from whichever of maxLineBytes and maxBufferSize is set, and remembers which', () => {
    const viaBuffer = resolveBoundedStdioOptions({ maxBufferSize: 100 })
    expect([viaBuffer.maxLineBytes, viaBuffer.maxBytes, viaBuffer.lineBytesOption]).toEqual([
      100,
      100,
      'maxBufferSize',
    ])
    const viaLine = resolveBoundedStdioOptions({ maxLineBytes: 100 })
    expect([viaLine.maxLineBytes, viaLine.lineBytesOption]).toEqual([100, 'maxLineBytes'])
    const both = resolveBoundedStdioOptions({ maxLineBytes: 100, maxBufferSize: 100 })
    expect([both.maxLineBytes, both.lineBytesOption]).toEqual([100, 'maxLineBytes'])
    // `undefined` is "not set", as the SDK reads it.
    const unset = resolveBoundedStdioOptions({ maxBufferSize: undefined, maxLineBytes: 100 })
    expect(unset.lineBytesOption).toBe('maxLineBytes')
    expect(resolveBoundedStdioOptions({ maxBufferSize: 64 * MiB }).maxLineBytes).toBe(64 * MiB)
  })

  it('returns options it resolved as they are, frozen', () => {
    const resolved = resolveBoundedStdioOptions({ maxNodes: 5 })
    expect(resolveBoundedStdioOptions(resolved)).toBe(resolved)
    expect(Object.isFrozen(resolved)).toBe(true)
  })
})

describe('resolveResultBudgetOptions', () => {
  it('names the option and the ceiling in its TypeErrors', () => {
    expect(() => resolveResultBudgetOptions({ maxResultBytes: 64 * MiB + 1 })).toThrow(
      new TypeError('maxResultBytes may not exceed 67108864, got 67108865'),
    )
    expect(() => resolveResultBudgetOptions({ nope: 1 } as never)).toThrow(
      new TypeError('resultBudget: unknown option nope'),
    )
    expect(() =>
      resolveResultBudgetOptions({ maxResultBytes: 2048, envelopeReserveBytes: 2048 }),
    ).toThrow(new TypeError('envelopeReserveBytes must be smaller than maxResultBytes'))
    expect(() => resolveResultBudgetOptions({ maxNodes: 0 })).toThrow(/maxNodes/)
  })

  it('admits the 64 MiB ceiling, a reserve one byte under the budget, and a zero reserve and depth', () => {
    expect(resolveResultBudgetOptions({ maxResultBytes: 64 * MiB }).maxResultBytes).toBe(64 * MiB)
    const tight = resolveResultBudgetOptions({ maxResultBytes: 2048, envelopeReserveBytes: 2047 })
    expect(tight.maxBytes).toBe(1)
    const none = resolveResultBudgetOptions({ envelopeReserveBytes: 0, maxDepth: 0 })
    expect([none.maxBytes, none.maxDepth]).toEqual([64 * MiB, 0])
  })

  it('fills every field, the result object getting the budget less the reserve', () => {
    expect({ ...resolveResultBudgetOptions() }).toEqual({
      ...RESULT_BUDGET_OPTIONS.defaults,
      maxBytes: 64 * MiB - 1024,
    })
    expect({
      ...resolveResultBudgetOptions({
        maxResultBytes: 4096,
        envelopeReserveBytes: 96,
        maxNodes: 5,
        maxDepth: 3,
      }),
    }).toEqual({
      maxResultBytes: 4096,
      envelopeReserveBytes: 96,
      maxNodes: 5,
      maxDepth: 3,
      maxBytes: 4000,
    })
    // A control is built once; every transport it decorates holds its policy as it is.
    const budget = createResultBudget({ maxNodes: 5 })
    const transport = { send: async () => {}, start: async () => {}, close: async () => {} }
    expect(budget.decorate(transport).options).toBe(budget.options)
    expect(resultBudget(transport, budget).options).toBe(budget.options)
    expect(budget.options).toEqual(resolveResultBudgetOptions({ maxNodes: 5 }))
  })
})

describe('createMcpHttpAdmission', () => {
  it('names the option in its TypeErrors', () => {
    expect(() => mcpBodyAdmission({ maxBytes: 64 * MiB + 1 })).toThrow(
      new TypeError('maxBytes may not exceed 67108864, got 67108865'),
    )
    expect(() => createMcpHttpAdmission({ unknown: 1 } as never)).toThrow(
      new TypeError('createMcpHttpAdmission: unknown option unknown'),
    )
    for (const host of ['', 5]) {
      expect(() => createMcpHttpAdmission({ host } as never)).toThrow(
        new TypeError('host must be a non-empty string'),
      )
    }
    for (const name of ['allowedHosts', 'allowedOrigins', 'supportedProtocolVersions']) {
      for (const value of ['localhost', [''], [7], ['ok', ''], ['ok', 7]]) {
        expect(() => createMcpHttpAdmission({ [name]: value } as never)).toThrow(
          new TypeError(`${name} must be an array of non-empty strings`),
        )
      }
    }
    expect(() => createMcpHttpAdmission({ allowedHosts: ['a b'] })).toThrow(
      new TypeError('allowedHosts holds a malformed hostname'),
    )
    for (const origin of ['not a url', 'file:///etc/passwd', 'data:text/plain,x']) {
      expect(() => createMcpHttpAdmission({ allowedOrigins: [origin] })).toThrow(
        new TypeError('allowedOrigins holds a malformed origin'),
      )
    }
  })

  it('admits a 64 MiB cap and passes the body options, and only those, to http-admission', () => {
    expect(
      createMcpHttpAdmission({ body: mcpBodyAdmission({ maxBytes: 64 * MiB }) }).policy.body.policy
        .maxBytes,
    ).toBe(64 * MiB)
    const admission = createMcpHttpAdmission({
      body: mcpBodyAdmission({ maxNodes: 5, maxDepth: 3 }),
      host: 'localhost',
    }).policy.body.policy
    expect([admission.maxNodes, admission.maxDepth]).toEqual([5, 3])
    expect(admission.types).toEqual(['application/json'])
    expect(admission.otherTypes).toBe('refuse')
  })

  it('serializes the allow-lists: hostnames lower-cased without port, origins as URL.origin', () => {
    const r = createMcpHttpAdmission({
      allowedHosts: ['MCP.Example:8443', '[::1]:3000'],
      allowedOrigins: ['HTTPS://App.Example:443/path?q', 'http://127.0.0.1:3000'],
    }).policy
    expect(r.allowedHosts).toEqual(['mcp.example', '[::1]'])
    expect(r.allowedOrigins).toEqual(['https://app.example', 'http://127.0.0.1:3000'])
    expect(Object.isFrozen(r.allowedHosts)).toBe(true)
    expect(Object.isFrozen(r.allowedOrigins)).toBe(true)
  })

  it('turns Origin checks on with allowedHosts on a public host, and keeps a given origin list on loopback', () => {
    const named = createMcpHttpAdmission({ host: '0.0.0.0', allowedHosts: ['mcp.example'] }).policy
    expect(named.allowedOrigins).toBe('loopback')
    const listed = createMcpHttpAdmission({ allowedOrigins: ['https://app.example'] }).policy
    expect(listed.allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]'])
    expect(listed.allowedOrigins).toEqual(['https://app.example'])
    const upper = createMcpHttpAdmission({ host: 'LOCALHOST' }).policy
    expect(upper.allowedOrigins).toBe('loopback')
  })

  it('copies and freezes a given version list, defaults the rest', () => {
    const versions = ['2025-06-18']
    const r = createMcpHttpAdmission({ supportedProtocolVersions: versions }).policy
    expect(r.supportedProtocolVersions).toEqual(versions)
    expect(r.supportedProtocolVersions).not.toBe(versions)
    expect(Object.isFrozen(r.supportedProtocolVersions)).toBe(true)
    const d = createMcpHttpAdmission().policy
    expect(d.supportedProtocolVersions).toBe(MCP_PROTOCOL_VERSIONS)
    expect(d.releaseSdkJsonResponses).toBe(true)
    expect(
      createMcpHttpAdmission({ releaseSdkJsonResponses: false }).policy.releaseSdkJsonResponses,
    ).toBe(false)
    expect(Object.isFrozen(d)).toBe(true)
  })

  it('holds the controls it is given, refuses a look-alike of each, and builds the defaults once', () => {
    const body = mcpBodyAdmission({ maxBytes: 1024 })
    const eras = mcpProtocolEras({ modernVersions: [] })
    const route = mcpRouteHead({ methods: ['ping'] })
    const callers = callerKeys({ ipv6PrefixBits: 48 })
    const held = createMcpHttpAdmission({ body, eras, route, callers })
    expect(held.policy).toMatchObject({ body, eras, route, callers })
    expect(Object.isFrozen(held)).toBe(true)
    for (const [name, builtBy, value] of [
      ['eras', 'mcpProtocolEras()', { modernVersions: [] }],
      ['route', 'mcpRouteHead()', { admit: () => ({ ok: true }) }],
      ['callers', 'callerKeys()', { keyOf: 'x' }],
    ] as const) {
      expect(() => createMcpHttpAdmission({ [name]: value } as never)).toThrow(
        new TypeError(`${name} must be a control built by ${builtBy}`),
      )
    }
    expect(() => createMcpHttpAdmission({ body: bodyAdmission() })).toThrow(
      new TypeError('body must take application/json only, strict (mcpBodyAdmission())'),
    )
    const a = createMcpHttpAdmission().policy
    const b = createMcpHttpAdmission({ host: 'localhost' }).policy
    expect([a.body, a.route, a.callers]).toEqual([b.body, b.route, b.callers])
    expect(a.body).toBe(b.body)
    expect(a.body.policy.maxBytes).toBe(MCP_HTTP_BODY_BYTES)
  })
})

describe('isLoopbackHost', () => {
  it('is true for localhost, 127.0.0.0/8 and ::1 only', () => {
    for (const host of [
      'localhost',
      'LocalHost',
      '::1',
      '[::1]',
      '127.0.0.1',
      '127.9.99.254',
      '127.10.0.1',
    ]) {
      expect(isLoopbackHost(host)).toBe(true)
    }
    expect(isLoopbackHost('mcp.localhost')).toBe(true)
    for (const host of [
      '0.0.0.0',
      '127.0.0.1.evil.example',
      'x127.0.0.1',
      '127.0.0.1234',
      '127a0a0a1',
      '1127.0.0.1',
      'localhost.evil.example',
      'evillocalhost',
      '::2',
      '',
    ]) {
      expect(isLoopbackHost(host)).toBe(false)
    }
  })
})

describe('resolveSessionPoolOptions', () => {
  it('names the option in its TypeErrors and admits idleMs false', () => {
    expect(() => new SessionPool({ max: 1 } as never)).toThrow(
      new TypeError('SessionPool: unknown option max'),
    )
    expect(() => new SessionPool({ maxSessionsPerKey: 0 })).toThrow(/maxSessionsPerKey/)
    expect(() => new SessionPool({ idleMs: 0 })).toThrow(/idleMs/)
    expect(() => new SessionPool({ idleMs: true } as never)).toThrow(/idleMs/)
    expect(resolveSessionPoolOptions({ idleMs: false }).idleMs).toBe(false)
  })

  it('derives the per-key quota as a tenth of maxSessions rounded up, unless given', () => {
    expect(resolveSessionPoolOptions({ maxSessions: 15 }).maxSessionsPerKey).toBe(2)
    expect(resolveSessionPoolOptions({ maxSessions: 15, maxSessionsPerKey: 15 })).toEqual({
      maxSessions: 15,
      maxSessionsPerKey: 15,
      poolMemberShare: 0.25,
      idleMs: 600_000,
      streamIdleMs: 600_000,
      maxLifetimeMs: 3_600_000,
    })
    expect(resolveSessionPoolOptions({ idleMs: 5 }).idleMs).toBe(5)
    const resolved = resolveSessionPoolOptions()
    expect(resolveSessionPoolOptions(resolved)).toBe(resolved)
    expect(Object.isFrozen(resolved)).toBe(true)
  })
})
