// The parked-calls table and the input-response shapes through their exported API, in process
// (no network; the TTL is driven by vitest's fake timers, not by waiting). The same claims
// through the CLI, with real processes, are in input-bridge-cli.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BridgedCall } from '../src/bridged-call.js'
import { admitInputResponse } from '../src/input-responses.js'
import { parkedCalls } from '../src/parked-calls.js'
import type { RpcReply } from '../src/rpc-session.js'

afterEach(() => {
  vi.useRealTimers()
})

/** A bridged call whose upstream never answers; `aborted` tells whether it was cancelled. */
function pendingCall(): { call: BridgedCall; aborted: () => boolean } {
  let signal: AbortSignal | undefined
  const call = new BridgedCall({}, (s) => {
    signal = s
    return new Promise<RpcReply>(() => {})
  })
  return { call, aborted: () => signal?.aborted === true }
}

describe('parkedCalls', () => {
  it('refuses the call past maxPerPrincipal and past maxCalls with ERR_RELAY_LIMIT and the limit hit', () => {
    const table = parkedCalls({ maxCalls: 3, maxPerPrincipal: 2 })
    expect(table.park('alice', pendingCall().call).ok).toBe(true)
    expect(table.park('alice', pendingCall().call).ok).toBe(true)
    expect(table.park('alice', pendingCall().call)).toEqual({
      ok: false,
      code: 'ERR_RELAY_LIMIT',
      limit: 2,
    })
    expect(table.park('bob', pendingCall().call).ok).toBe(true)
    expect(table.park('bob', pendingCall().call)).toEqual({
      ok: false,
      code: 'ERR_RELAY_LIMIT',
      limit: 3,
    })
    expect(table.size).toBe(3)
  })

  it('gives a parked call back only to its principal, once', () => {
    const table = parkedCalls()
    const { call } = pendingCall()
    const parked = table.park('alice', call)
    if (!parked.ok) throw new Error('not parked')
    expect(table.peek(parked.id, 'bob')).toBeUndefined()
    expect(table.take(parked.id, 'bob')).toBeUndefined()
    expect(table.take(parked.id, 'alice')).toBe(call)
    expect(table.take(parked.id, 'alice')).toBeUndefined()
    expect(table.size).toBe(0)
  })

  it('cancels a call left parked past ttlMs, frees its slot and reports it', () => {
    vi.useFakeTimers()
    const table = parkedCalls({ ttlMs: 1000, maxPerPrincipal: 1 })
    const { call, aborted } = pendingCall()
    const expired = vi.fn()
    const parked = table.park('alice', call, expired)
    if (!parked.ok) throw new Error('not parked')
    vi.advanceTimersByTime(999)
    expect(aborted()).toBe(false)
    vi.advanceTimersByTime(1)
    expect(aborted()).toBe(true)
    expect(expired).toHaveBeenCalledOnce()
    expect(table.take(parked.id, 'alice')).toBeUndefined()
    expect(table.park('alice', pendingCall().call).ok).toBe(true)
  })

  it('fails at construction on an unknown option or a value out of range, and takes maxCalls 0', () => {
    expect(() => parkedCalls({ maxCalls: -1 })).toThrow(TypeError)
    expect(() => parkedCalls({ maxCalls: -1 })).toThrow(/maxCalls/)
    expect(() => parkedCalls({ maxPerPrincipal: 0 })).toThrow(TypeError)
    expect(() => parkedCalls({ maxPerPrincipal: 0 })).toThrow(/maxPerPrincipal/)
    expect(() => parkedCalls({ ttlMs: 1.5 })).toThrow(TypeError)
    expect(() => parkedCalls({ ttlMs: 1.5 })).toThrow(/ttlMs/)
    expect(() => parkedCalls({ ttl: 5 } as never)).toThrow(TypeError)
    expect(() => parkedCalls({ ttl: 5 } as never)).toThrow(/ttl\b/)
    expect(parkedCalls({ maxCalls: 0 }).options.maxCalls).toBe(0)
  })
})

describe('admitInputResponse', () => {
  it('rebuilds each method’s answer from the fields the revision defines', () => {
    expect(
      admitInputResponse('elicitation/create', {
        action: 'accept',
        content: { name: 'Ada', n: 1, ok: true, tags: ['a'] },
        extra: 1,
      }),
    ).toEqual({ action: 'accept', content: { name: 'Ada', n: 1, ok: true, tags: ['a'] } })
    expect(
      admitInputResponse('sampling/createMessage', {
        role: 'assistant',
        content: { type: 'text', text: 'hi' },
        model: 'm',
        _meta: {},
      }),
    ).toEqual({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' })
    expect(admitInputResponse('roots/list', { roots: [{ uri: 'file:///a', x: 1 }] })).toEqual({
      roots: [{ uri: 'file:///a' }],
    })
  })

  it('refuses what is not that shape', () => {
    const refused: [string, unknown][] = [
      ['elicitation/create', { action: 'maybe' }],
      ['elicitation/create', { action: 'accept', content: { a: { b: 1 } } }],
      ['elicitation/create', { action: 'accept', content: { a: Number.NaN } }],
      ['sampling/createMessage', { role: 'system', content: { type: 'text' }, model: 'm' }],
      ['sampling/createMessage', { role: 'user', content: 'text', model: 'm' }],
      ['roots/list', { roots: [{ uri: 'https://example.com' }] }],
      ['roots/list', { roots: 'file:///a' }],
      ['tools/call', {}],
      ['elicitation/create', ['accept']],
    ]
    for (const [method, value] of refused) {
      expect(admitInputResponse(method, value)).toBeUndefined()
    }
  })
})
