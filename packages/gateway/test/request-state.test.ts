// The request-state control through its public API, in process (no network): every way a
// returned state can be wrong, and the clock moved by the `now` option rather than by waiting.
// The same claims through the CLI, with real processes, are in request-state-cli.test.ts.
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { GATEWAY_CODES } from '../src/gateway-errors.js'
import { requestStateSeal } from '../src/request-state.js'

const OLD = { id: 'old', secret: randomBytes(32) }
const NEW = { id: 'new', secret: randomBytes(32) }
const ALICE = { principal: 'cred:alice', route: '/mcp' }
const BOB = { principal: 'cred:bob', route: '/mcp' }
const STATE = 'upstream-state-1'
const INPUT_REQUIRED = { resultType: 'input_required', requestState: STATE }

function sealed(
  seal: ReturnType<typeof requestStateSeal>,
  params: Record<string, unknown> = { name: 'book', arguments: { note: 'a' } },
  method = 'tools/call',
): string {
  const out = seal.seal(method, INPUT_REQUIRED, params, ALICE)
  if (!out.ok) throw new Error(`seal failed: ${out.code}`)
  return (out.result as { requestState: string }).requestState
}

describe('requestStateSeal', () => {
  it('replaces the upstream state by a handle signed by the first key, and opens it back to the same state', async () => {
    const seal = requestStateSeal({ keys: [NEW, OLD] })
    const handle = sealed(seal)
    expect(handle).not.toBe(STATE)
    expect(handle.startsWith('tgs1.new.')).toBe(true)
    const opened = await seal.open(
      'tools/call',
      { name: 'book', arguments: { note: 'a' }, requestState: handle },
      ALICE,
    )
    expect(opened).toEqual({
      ok: true,
      params: { name: 'book', arguments: { note: 'a' }, requestState: STATE },
    })
  })

  it('passes a result without requestState and params without requestState unchanged', async () => {
    const seal = requestStateSeal({ keys: [NEW] })
    const result = { resultType: 'complete', content: [] }
    expect(seal.seal('tools/call', result, { name: 'book' }, ALICE)).toEqual({ ok: true, result })
    const params = { name: 'book', arguments: {} }
    expect(await seal.open('tools/call', params, ALICE)).toEqual({ ok: true, params })
  })

  it('refuses a state minted for another principal, tool, method, arguments or route with ERR_REQUEST_STATE_INVALID', async () => {
    const seal = requestStateSeal({ keys: [NEW] })
    const handle = sealed(seal)
    const cases: [string, Record<string, unknown>, typeof ALICE][] = [
      ['tools/call', { name: 'book', arguments: { note: 'a' } }, BOB],
      ['tools/call', { name: 'cancel', arguments: { note: 'a' } }, ALICE],
      ['prompts/get', { name: 'book', arguments: { note: 'a' } }, ALICE],
      ['tools/call', { name: 'book', arguments: { note: 'b' } }, ALICE],
      ['tools/call', { name: 'book', arguments: { note: 'a' } }, { ...ALICE, route: '/other' }],
    ]
    const reasons: string[] = []
    for (const [method, params, call] of cases) {
      const opened = await seal.open(method, { ...params, requestState: handle }, call)
      expect(opened.ok).toBe(false)
      if (opened.ok) continue
      expect(opened.code).toBe('ERR_REQUEST_STATE_INVALID')
      reasons.push(opened.reason)
    }
    expect(reasons).toEqual([
      'handle_principal_mismatch',
      'handle_tool_mismatch',
      'handle_tool_mismatch',
      'handle_arguments_mismatch',
      'handle_route_mismatch',
    ])
  })

  it('refuses a forged, tampered, non-string or misplaced state with ERR_REQUEST_STATE_INVALID', async () => {
    const seal = requestStateSeal({ keys: [NEW] })
    const handle = sealed(seal)
    const last = handle.at(-1) === 'A' ? 'B' : 'A'
    const params = { name: 'book', arguments: { note: 'a' } }
    for (const [method, state] of [
      ['tools/call', STATE],
      ['tools/call', `${handle.slice(0, -1)}${last}`],
      ['tools/call', 42],
      ['completion/complete', handle],
    ] as const) {
      const opened = await seal.open(method, { ...params, requestState: state }, ALICE)
      expect(opened).toMatchObject({ ok: false, code: 'ERR_REQUEST_STATE_INVALID' })
    }
  })

  it('refuses a state past ttlMs with ERR_REQUEST_STATE_EXPIRED, and opens it just before', async () => {
    let clock = 1_000_000
    const seal = requestStateSeal({ keys: [NEW], ttlMs: 60_000, now: () => clock })
    const handle = sealed(seal)
    const params = { name: 'book', arguments: { note: 'a' }, requestState: handle }
    clock += 59_999
    expect((await seal.open('tools/call', params, ALICE)).ok).toBe(true)
    clock += 1
    expect(await seal.open('tools/call', params, ALICE)).toMatchObject({
      ok: false,
      code: 'ERR_REQUEST_STATE_EXPIRED',
      reason: 'handle_expired',
    })
  })

  it('opens a state signed by a key still listed after rotation, and refuses it once that key is dropped', async () => {
    const before = requestStateSeal({ keys: [OLD] })
    const handle = sealed(before)
    const params = { name: 'book', arguments: { note: 'a' }, requestState: handle }
    const rotated = requestStateSeal({ keys: [NEW, OLD] })
    expect((await rotated.open('tools/call', params, ALICE)).ok).toBe(true)
    expect(sealed(rotated).startsWith('tgs1.new.')).toBe(true)
    const dropped = requestStateSeal({ keys: [NEW] })
    expect(await dropped.open('tools/call', params, ALICE)).toMatchObject({
      ok: false,
      code: 'ERR_REQUEST_STATE_INVALID',
      reason: 'handle_unknown_key',
      keyId: 'old',
    })
  })

  it('refuses a handle longer than maxHandleBytes with ERR_REQUEST_STATE_TOO_LARGE and its limit', async () => {
    const seal = requestStateSeal({ keys: [NEW], maxHandleBytes: 1024 })
    const opened = await seal.open(
      'tools/call',
      { name: 'book', requestState: 'x'.repeat(1025) },
      ALICE,
    )
    expect(opened).toMatchObject({ ok: false, code: 'ERR_REQUEST_STATE_TOO_LARGE', limit: 1024 })
  })

  it('refuses to seal an upstream state past maxHandleBytes with ERR_UPSTREAM_STATE_TOO_LARGE, and a non-string one with ERR_UPSTREAM_INVALID', () => {
    const seal = requestStateSeal({ keys: [NEW], maxHandleBytes: 1024 })
    const params = { name: 'book', arguments: {} }
    const big = { resultType: 'input_required', requestState: 's'.repeat(1024) }
    expect(seal.seal('tools/call', big, params, ALICE)).toEqual({
      ok: false,
      code: 'ERR_UPSTREAM_STATE_TOO_LARGE',
      limit: 1024,
    })
    const odd = { resultType: 'input_required', requestState: { raw: true } }
    expect(seal.seal('tools/call', odd, params, ALICE)).toEqual({
      ok: false,
      code: 'ERR_UPSTREAM_INVALID',
    })
  })

  it('binds any upstream name, upper case and all, and a resource by its uri', async () => {
    const seal = requestStateSeal({ keys: [NEW] })
    for (const [method, params] of [
      ['tools/call', { name: 'getWeather Now!', arguments: {} }],
      ['resources/read', { uri: 'file:///a b' }],
    ] as const) {
      const handle = sealed(seal, params, method)
      const opened = await seal.open(method, { ...params, requestState: handle }, ALICE)
      expect(opened).toMatchObject({ ok: true, params: { requestState: STATE } })
    }
  })

  it('refuses a handle sealed in front of another upstream with the same keys, and opens one sealed in front of the same upstream', async () => {
    const here = requestStateSeal({ keys: [NEW], upstreamId: 'billing' })
    const sameUpstream = requestStateSeal({ keys: [NEW], upstreamId: 'billing' })
    const otherUpstream = requestStateSeal({ keys: [NEW], upstreamId: 'calendar' })
    const params = { name: 'book', arguments: { note: 'a' } }
    const handle = sealed(here, params)
    const back = { ...params, requestState: handle }
    expect(await otherUpstream.open('tools/call', back, ALICE)).toMatchObject({
      ok: false,
      code: 'ERR_REQUEST_STATE_INVALID',
    })
    expect(await sameUpstream.open('tools/call', back, ALICE)).toEqual({
      ok: true,
      params: { ...params, requestState: STATE },
    })
  })

  it('opens a parked-call handle to its id, never to an upstream state, and an upstream state never to a parked id', async () => {
    const seal = requestStateSeal({ keys: [NEW] })
    const params = { name: 'book', arguments: { note: 'a' } }
    const parked = seal.sealParked('tools/call', 'call-1', params, ALICE)
    if (!parked.ok) throw new Error('sealParked failed')
    const opened = await seal.open('tools/call', { ...params, requestState: parked.result }, ALICE)
    expect(opened).toMatchObject({ ok: true, parked: 'call-1' })
    // An upstream whose own state looks like the parked tag still opens as an upstream state.
    const out = seal.seal('tools/call', { requestState: 'p:call-1' }, params, ALICE)
    if (!out.ok) throw new Error('seal failed')
    const upstreamOwn = await seal.open(
      'tools/call',
      { ...params, requestState: (out.result as { requestState: string }).requestState },
      ALICE,
    )
    expect(upstreamOwn).toEqual({ ok: true, params: { ...params, requestState: 'p:call-1' } })
    expect(
      await seal.open('tools/call', { ...params, requestState: parked.result }, BOB),
    ).toMatchObject({
      ok: false,
      code: 'ERR_REQUEST_STATE_INVALID',
    })
  })

  it('keeps secrets out of its options and fails at construction on bad keys or limits', () => {
    const seal = requestStateSeal({ keys: [NEW, OLD] })
    expect(seal.options).toEqual({
      keyIds: ['new', 'old'],
      ttlMs: 600_000,
      maxHandleBytes: 16384,
      upstreamId: '',
    })
    expect(JSON.stringify(seal)).not.toContain(Buffer.from(NEW.secret).toString('base64url'))
    expect(() => requestStateSeal({ keys: [] })).toThrow(TypeError)
    expect(() => requestStateSeal({ keys: [{ id: 'short', secret: randomBytes(16) }] })).toThrow(
      TypeError,
    )
    expect(() => requestStateSeal({ keys: [NEW, NEW] })).toThrow(TypeError)
    expect(() => requestStateSeal({ keys: [NEW], ttlMs: 0 })).toThrow(TypeError)
    expect(() => requestStateSeal({ keys: [NEW], maxHandleBytes: 2 * 1024 * 1024 })).toThrow(
      TypeError,
    )
  })
})

describe('GATEWAY_CODES (request state)', () => {
  it('answers request-state refusals in the gateway range, apart from the relay codes', () => {
    const codes = [
      'ERR_REQUEST_STATE_INVALID',
      'ERR_REQUEST_STATE_EXPIRED',
      'ERR_REQUEST_STATE_TOO_LARGE',
      'ERR_UPSTREAM_STATE_TOO_LARGE',
    ] as const
    for (const code of codes) {
      const rpc = GATEWAY_CODES[code].rpc
      expect(rpc <= -32000 && rpc >= -32019).toBe(true)
      expect([-32012, -32013, -32014, -32015]).not.toContain(rpc)
    }
  })
})
