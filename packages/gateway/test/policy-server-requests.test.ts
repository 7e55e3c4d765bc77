import { describe, expect, it } from 'vitest'
import type { CallContext, CallerSession } from '../src/call-context.js'
import { UpstreamForwarder } from '../src/forwarder.js'
import type { RpcReply } from '../src/rpc-session.js'
import { ServerRequestRelay } from '../src/server-requests.js'
import type { Upstream, UpstreamCall } from '../src/upstream.js'

const ALL = { sampling: {}, elicitation: {}, roots: {} }

/** A session-era caller whose relayed requests are collected in `asked`. */
function caller(capabilities: Record<string, unknown> = ALL): {
  session: CallerSession
  asked: Record<string, unknown>[]
  context: CallContext
} {
  const session: CallerSession = { logLevel: undefined, clientCapabilities: capabilities }
  const asked: Record<string, unknown>[] = []
  return { session, asked, context: { era: '2025', session, ask: (r) => asked.push({ ...r }) } }
}

const roots = { method: 'roots/list', params: {} }

describe('ServerRequestRelay', () => {
  it('refuses a request past maxPending for one caller with ERR_RELAY_LIMIT, and relays again once one is answered', async () => {
    const relay = new ServerRequestRelay({ maxPending: 2 })
    const a = caller()
    const first = relay.ask(roots, a.context)
    void relay.ask(roots, a.context)
    const third = await relay.ask(roots, a.context)
    expect(third).toMatchObject({
      ok: false,
      error: { code: -32013, data: { code: 'ERR_RELAY_LIMIT', limit: 2 } },
    })
    expect(a.asked).toHaveLength(2)
    // Another caller has its own count.
    const b = caller()
    void relay.ask(roots, b.context)
    expect(b.asked).toHaveLength(1)
    expect(
      relay.answer({ jsonrpc: '2.0', id: a.asked[0]?.id, result: { roots: [] } }, a.session),
    ).toBeUndefined()
    expect(await first).toEqual({ ok: true, result: { roots: [] } })
    void relay.ask(roots, a.context)
    expect(a.asked).toHaveLength(3)
  })

  it('relays every request when maxPending is raised past them (the control removed)', () => {
    const relay = new ServerRequestRelay({ maxPending: 100 })
    const a = caller()
    for (let i = 0; i < 50; i++) void relay.ask(roots, a.context)
    expect(a.asked).toHaveLength(50)
    expect(relay.pending).toBe(50)
  })

  it('answers ERR_RELAY_TIMEOUT when the caller does not answer in time, and refuses its late answer', async () => {
    const relay = new ServerRequestRelay({ timeoutMs: 1 })
    const a = caller()
    const reply = await relay.ask(roots, a.context)
    expect(reply).toMatchObject({ ok: false, error: { data: { code: 'ERR_RELAY_TIMEOUT' } } })
    expect(relay.answer({ jsonrpc: '2.0', id: a.asked[0]?.id, result: {} }, a.session)).toBe(
      'ERR_RELAY_UNKNOWN',
    )
  })

  it('answers ERR_RELAY_TIMEOUT at once when the caller has gone away', async () => {
    const relay = new ServerRequestRelay()
    const a = caller()
    const gone = new AbortController()
    const reply = relay.ask(roots, { ...a.context, signal: gone.signal })
    gone.abort()
    expect(await reply).toMatchObject({ ok: false, error: { data: { code: 'ERR_RELAY_TIMEOUT' } } })
    expect(relay.pending).toBe(0)
  })

  it("refuses another caller's answer to a relayed id, and an answer that is not a result object or an error", () => {
    const relay = new ServerRequestRelay()
    const a = caller()
    const b = caller()
    void relay.ask(roots, a.context)
    const id = a.asked[0]?.id
    expect(relay.answer({ jsonrpc: '2.0', id, result: { roots: [] } }, b.session)).toBe(
      'ERR_RELAY_UNKNOWN',
    )
    expect(relay.answer({ jsonrpc: '2.0', id, result: 'text' }, a.session)).toBe(
      'ERR_INVALID_REQUEST',
    )
    expect(relay.answer({ jsonrpc: '2.0', id, error: { code: 'x' } }, a.session)).toBe(
      'ERR_INVALID_REQUEST',
    )
    expect(relay.pending).toBe(1)
    expect(
      relay.answer({ jsonrpc: '2.0', id, error: { code: -1, message: 'declined' } }, a.session),
    ).toBeUndefined()
    expect(relay.pending).toBe(0)
  })

  it('refuses what the caller did not declare: -32601 without the capability, -32602 for an undeclared elicitation mode or sampling tools', async () => {
    const relay = new ServerRequestRelay()
    const none = caller({})
    expect(
      await relay.ask({ method: 'sampling/createMessage', params: {} }, none.context),
    ).toMatchObject({ error: { code: -32601 } })
    const form = caller({ elicitation: {}, sampling: {} })
    const url = {
      method: 'elicitation/create',
      params: { mode: 'url', url: 'https://example.test' },
    }
    expect(await relay.ask(url, form.context)).toMatchObject({ error: { code: -32602 } })
    const tools = { method: 'sampling/createMessage', params: { tools: [] } }
    expect(await relay.ask(tools, form.context)).toMatchObject({ error: { code: -32602 } })
    expect(await relay.ask({ method: 'tasks/get', params: {} }, form.context)).toMatchObject({
      error: { code: -32601 },
    })
    expect(form.asked).toEqual([])
    const both = caller({ elicitation: { form: {}, url: {} } })
    void relay.ask(url, both.context)
    expect(both.asked.map((r) => r.method)).toEqual(['elicitation/create'])
  })

  it('refuses -32601 for a caller that cannot take requests: a 2026-07-28 caller, or one without a channel', async () => {
    const relay = new ServerRequestRelay()
    const a = caller()
    expect(await relay.ask(roots, { ...a.context, era: '2026' })).toMatchObject({
      error: { code: -32601 },
    })
    expect(await relay.ask(roots, { ...a.context, ask: undefined })).toMatchObject({
      error: { code: -32601 },
    })
    expect(a.asked).toEqual([])
  })

  it('fails at construction on a bad option', () => {
    expect(() => new ServerRequestRelay({ maxPending: 0 })).toThrow(TypeError)
    expect(() => new ServerRequestRelay({ timeoutMs: 1.5 })).toThrow(TypeError)
  })
})

describe('UpstreamForwarder', () => {
  it('refuses a relayed request still waiting when its call ends, freeing its place under the cap', async () => {
    const relay = new ServerRequestRelay({ maxPending: 1 })
    let asked: Promise<RpcReply> | undefined
    // An upstream whose call asks the client, then ends without waiting for the answer.
    const upstream = {
      handshake: undefined,
      request: async (_m: string, _p: unknown, _own?: boolean, call?: UpstreamCall) => {
        asked = call?.onRequest?.(roots)
        return { ok: true, result: {} } as RpcReply
      },
    } as unknown as Upstream
    const forwarder = new UpstreamForwarder(upstream, relay)
    const a = caller()
    await forwarder.forward('tools/call', { name: 't' }, a.context)
    expect(a.asked).toHaveLength(1)
    expect(await asked).toMatchObject({ ok: false, error: { data: { code: 'ERR_RELAY_TIMEOUT' } } })
    expect(relay.pending).toBe(0)
    void relay.ask(roots, a.context)
    expect(a.asked).toHaveLength(2)
  })
})
