// TransportDecorator's forwarding and failure paths, in-process over a bare transport that
// records what it sends and with which options (plumbing; the security claims built on the
// decorator are tested through real child processes and sockets in the other files).
import { describe, expect, it } from 'vitest'
import { isJsonRpcRequest, type JsonRpcMessage, TransportDecorator } from '../src/decorator.js'
import type { McpTransport, TransportSendOptionsLike } from '../src/mcp-types.js'

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages as the wire gives them
type Msg = any

function bare(extra: Partial<McpTransport> = {}) {
  const sent: [Msg, TransportSendOptionsLike | undefined][] = []
  let started = 0
  const t: McpTransport & { sent: typeof sent; started: () => number } = {
    sent,
    started: () => started,
    start: async () => {
      started++
    },
    send: async (m, options) => {
      sent.push([m, options])
    },
    close: async () => {},
    ...extra,
  }
  return t
}

/** A decorator whose inbound hook is given, with its protected replies made callable. */
class Open extends TransportDecorator {
  constructor(
    inner: McpTransport,
    readonly inbound: (m: JsonRpcMessage) => void | Promise<void> = () => {},
  ) {
    super(inner)
  }
  protected override handleInbound(m: JsonRpcMessage): void | Promise<void> {
    return this.inbound(m)
  }
  answer(id: string | number, result: Record<string, unknown>) {
    return this.reply(id, result)
  }
  refuse(id: string | number | null) {
    return this.replyError(id, { code: -32000, message: 'no' })
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('TransportDecorator plumbing', () => {
  it('refuses anything without a send function, naming what it needs', () => {
    for (const inner of [null, undefined, 'transport', {}, { send: 'x' }]) {
      expect(() => new TransportDecorator(inner as never)).toThrow(
        new TypeError('TransportDecorator needs an MCP Transport to decorate'),
      )
    }
  })

  it('forwards start, send options and setProtocolVersion to the inner transport', async () => {
    const versions: string[] = []
    const inner = bare({ setProtocolVersion: (v: string) => versions.push(v) })
    const d = new TransportDecorator(inner)
    await d.start()
    expect(inner.started()).toBe(1)
    d.setProtocolVersion?.('2025-06-18')
    expect(versions).toEqual(['2025-06-18'])
    const options = { relatedRequestId: 3 }
    await d.send({ jsonrpc: '2.0', id: 3, result: {} }, options)
    expect(inner.sent[0]?.[1]).toBe(options)
  })

  it('keeps the taps set on the inner transport first, onmessage and onerror too', () => {
    const order: string[] = []
    const inner = bare()
    inner.onmessage = () => order.push('inner message')
    inner.onerror = (e) => order.push(`inner ${e.message}`)
    const d = new TransportDecorator(inner)
    d.onmessage = () => order.push('outer message')
    d.onerror = (e) => order.push(`outer ${e.message}`)
    inner.onmessage?.({ jsonrpc: '2.0', method: 'x' })
    inner.onerror?.(new Error('e'))
    expect(order).toEqual(['inner message', 'outer message', 'inner e', 'outer e'])
  })

  it('replies through its own send, naming the request it answers', async () => {
    const inner = bare()
    const d = new Open(inner)
    await d.answer(4, { ok: 1 })
    await d.refuse(5)
    await d.refuse(null)
    expect(inner.sent).toEqual([
      [{ jsonrpc: '2.0', id: 4, result: { ok: 1 } }, { relatedRequestId: 4 }],
      [{ jsonrpc: '2.0', id: 5, error: { code: -32000, message: 'no' } }, { relatedRequestId: 5 }],
      [{ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'no' } }, undefined],
    ])
  })

  it('fails closed on a rejected inbound hook: -32603 to a request, nothing to a notification', async () => {
    const inner = bare()
    const errors: Error[] = []
    const d = new Open(inner, async () => {
      throw 'not an Error'
    })
    const delivered: Msg[] = []
    d.onmessage = (m) => delivered.push(m)
    d.onerror = (e) => errors.push(e)
    inner.onmessage?.({ jsonrpc: '2.0', id: 'r', method: 'tools/call' })
    inner.onmessage?.({ jsonrpc: '2.0', method: 'notifications/x' })
    await tick()
    expect(delivered).toEqual([])
    expect(errors.map((e) => e.message)).toEqual(['inbound hook failed', 'inbound hook failed'])
    expect(inner.sent).toEqual([
      [
        { jsonrpc: '2.0', id: 'r', error: { code: -32603, message: 'Internal error' } },
        { relatedRequestId: 'r' },
      ],
    ])
  })

  it('reports a failed -32603 reply to onerror', async () => {
    const inner = bare({
      send: () => Promise.reject('down'),
    })
    const errors: string[] = []
    const d = new Open(inner, () => {
      throw new Error('boom')
    })
    d.onerror = (e) => errors.push(e.message)
    inner.onmessage?.({ jsonrpc: '2.0', id: 1, method: 'ping' })
    await tick()
    expect(errors).toEqual(['boom', 'reply failed'])
  })
})

describe('TransportDecorator with nothing connected to it', () => {
  it('takes an inner close, error or message before anything connected, and sends nothing', async () => {
    const inner = bare()
    new TransportDecorator(inner)
    expect(() => inner.onclose?.()).not.toThrow()
    expect(() => inner.onerror?.(new Error('e'))).not.toThrow()
    expect(() => inner.onmessage?.({ jsonrpc: '2.0', id: 1, method: 'ping' })).not.toThrow()
    await tick()
    expect(inner.sent).toEqual([])
  })

  it('still answers -32603 for a throwing or rejected hook when no onerror is set', async () => {
    const inner = bare()
    new Open(inner, (m) => {
      if ((m as Msg).id === 1) throw new Error('boom')
      return Promise.reject(new Error('boom'))
    })
    expect(() => inner.onmessage?.({ jsonrpc: '2.0', id: 1, method: 'ping' })).not.toThrow()
    inner.onmessage?.({ jsonrpc: '2.0', id: 2, method: 'ping' })
    await tick()
    expect(inner.sent.map(([m]) => [m.id, m.error?.code])).toEqual([
      [1, -32603],
      [2, -32603],
    ])
  })

  it('raises no unhandled rejection when the -32603 reply fails and no onerror is set', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const inner = bare({ send: () => Promise.reject(new Error('down')) })
      new Open(inner, () => {
        throw new Error('boom')
      })
      inner.onmessage?.({ jsonrpc: '2.0', id: 1, method: 'ping' })
      await tick()
      await tick()
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('ignores what an inbound hook returns when it is not a promise', async () => {
    const inner = bare()
    const d = new Open(inner, () => true as never)
    const errors: Error[] = []
    d.onerror = (e) => errors.push(e)
    expect(() => inner.onmessage?.({ jsonrpc: '2.0', id: 1, method: 'ping' })).not.toThrow()
    await tick()
    expect([errors, inner.sent]).toEqual([[], []])
  })
})

describe('isJsonRpcRequest', () => {
  it('is true only for a method with a string or number id', () => {
    expect(isJsonRpcRequest({ jsonrpc: '2.0', id: 1, method: 'x' })).toBe(true)
    expect(isJsonRpcRequest({ jsonrpc: '2.0', id: 'a', method: 'x' })).toBe(true)
    for (const m of [
      null,
      undefined,
      'x',
      { jsonrpc: '2.0', method: 'x' },
      { jsonrpc: '2.0', id: null, method: 'x' },
      { jsonrpc: '2.0', id: {}, method: 'x' },
      { jsonrpc: '2.0', id: 1, method: 7 },
      { jsonrpc: '2.0', id: 1, result: {} },
    ]) {
      expect(isJsonRpcRequest(m)).toBe(false)
    }
  })
})
