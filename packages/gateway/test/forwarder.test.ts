import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import type { CallContext, CallerSession } from '../src/call-context.js'
import { UpstreamForwarder } from '../src/forwarder.js'
import type { RpcReply } from '../src/rpc-session.js'
import { ServerRequestRelay } from '../src/server-requests.js'
import type { Upstream, UpstreamCall } from '../src/upstream.js'

const roots = { method: 'roots/list', params: {} }

/** A session-era caller with every capability, whose relayed requests land in `asked`. */
function caller(signal?: AbortSignal): { asked: unknown[]; context: CallContext } {
  const session: CallerSession = {
    logLevel: undefined,
    clientCapabilities: { sampling: {}, elicitation: {}, roots: {} },
  }
  const asked: unknown[] = []
  return { asked, context: { era: '2025', session, signal, ask: (r) => asked.push(r) } }
}

/** An upstream whose call runs `during` with the call's facts before it answers `{}`. */
function upstream(during: (call: UpstreamCall | undefined) => Promise<unknown> | unknown) {
  return {
    handshake: undefined,
    request: async (_m: string, _p: unknown, _own?: boolean, call?: UpstreamCall) => {
      await during(call)
      return { ok: true, result: {} } as RpcReply
    },
  } as unknown as Upstream
}

describe('UpstreamForwarder', () => {
  it("adds no listener to the caller's signal for a call the upstream asks nothing of", async () => {
    const gone = new AbortController()
    let during = -1
    const forwarder = new UpstreamForwarder(
      upstream(() => {
        during = getEventListeners(gone.signal, 'abort').length
      }),
      new ServerRequestRelay(),
    )
    const reply = await forwarder.forward('tools/call', { name: 't' }, caller(gone.signal).context)
    expect(reply).toEqual({ ok: true, result: {} })
    expect(during).toBe(0)
    expect(getEventListeners(gone.signal, 'abort')).toHaveLength(0)
  })

  it('refuses a request the upstream asks after its caller went, without asking the caller', async () => {
    const gone = new AbortController()
    let asked: Promise<RpcReply> | undefined
    const relay = new ServerRequestRelay()
    const forwarder = new UpstreamForwarder(
      upstream((call) => {
        gone.abort()
        asked = call?.onRequest?.(roots)
      }),
      relay,
    )
    const a = caller(gone.signal)
    await forwarder.forward('tools/call', { name: 't' }, a.context)
    expect(await asked).toMatchObject({ ok: false, error: { data: { code: 'ERR_RELAY_TIMEOUT' } } })
    expect(a.asked).toHaveLength(0)
    expect(relay.pending).toBe(0)
  })

  it('refuses a relayed request still waiting when its caller goes mid-call, and removes its listener when the call ends', async () => {
    const gone = new AbortController()
    let asked: Promise<RpcReply> | undefined
    let listening = -1
    const relay = new ServerRequestRelay()
    const forwarder = new UpstreamForwarder(
      upstream(async (call) => {
        asked = call?.onRequest?.(roots)
        listening = getEventListeners(gone.signal, 'abort').length
        gone.abort()
        await asked
      }),
      relay,
    )
    const a = caller(gone.signal)
    await forwarder.forward('tools/call', { name: 't' }, a.context)
    expect(a.asked).toHaveLength(1)
    expect(listening).toBeGreaterThan(0)
    expect(await asked).toMatchObject({ ok: false, error: { data: { code: 'ERR_RELAY_TIMEOUT' } } })
    expect(relay.pending).toBe(0)
    expect(getEventListeners(gone.signal, 'abort')).toHaveLength(0)
  })
})
