// webHandover's own behaviour on a real http.Server on 127.0.0.1, with stand-in handlers: what
// the handler is given (a bodiless request, the parsed body, the caller's authInfo), a thrown
// handler answered 500, an answer streamed with back-pressure, and a client that goes away.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { connect, type Socket } from 'node:net'
import { eventually } from '@tollgate/test-kit/eventually'
import { head } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import { type WebHandlerCallOptions, type WebMcpHandler, webHandover } from '../src/index.js'
import { send } from './helpers/modern-wire.js'

let running: Running[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  running = []
})

/** Serves `handover` with `body` (parsed from the raw text) as the admitted body. */
async function serve(
  handler: WebMcpHandler,
  call?: (req: IncomingMessage) => { authInfo?: object } | undefined,
): Promise<Running> {
  const handover = webHandover(handler)
  const server = await listen((req: IncomingMessage, res: ServerResponse) => {
    const pieces: Buffer[] = []
    req.on('data', (piece: Buffer) => pieces.push(piece))
    req.on('end', () => {
      const text = Buffer.concat(pieces).toString('utf8')
      void handover.handleRequest(req, res, text === '' ? undefined : JSON.parse(text), call?.(req))
    })
  })
  running.push(server)
  return server
}

/** A raw connection keeping every byte it received; `paused` reads nothing. */
function rawPost(port: number, paused = false): { socket: Socket; received: () => Buffer } {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  let data = Buffer.alloc(0)
  if (paused) socket.pause()
  else socket.on('data', (piece: Buffer) => (data = Buffer.concat([data, piece])))
  socket.write(
    `${head(['POST /mcp HTTP/1.1', `host: 127.0.0.1:${port}`, 'content-length: 2'])}{}`,
    'latin1',
  )
  return { socket, received: () => data }
}

const JSON_HEADERS = { 'content-type': 'application/json', 'x-trace': 'abc' }

describe('webHandover', () => {
  it('gives the handler a bodiless request with the method, URL, headers and the parsed body', async () => {
    const seen: { request?: Request; options?: WebHandlerCallOptions } = {}
    const server = await serve({
      async fetch(request, options) {
        seen.request = request
        seen.options = options
        return new Response(null, { status: 202 })
      },
    })
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { q: 'é' } }
    const answer = await send(server.port, 'POST', JSON_HEADERS, JSON.stringify(body))
    expect(answer.status).toBe(202)
    expect(seen.request?.method).toBe('POST')
    expect(seen.request?.url).toBe(`http://127.0.0.1:${server.port}/mcp`)
    expect(seen.request?.body).toBeNull()
    expect(seen.request?.headers.get('x-trace')).toBe('abc')
    expect(seen.request?.headers.get('content-type')).toBe('application/json')
    expect(seen.request?.headers.has('content-length')).toBe(false)
    expect(seen.options?.parsedBody).toEqual(body)
    expect(seen.options?.authInfo).toBeUndefined()
  })

  it('passes the call authInfo, else req.auth, to the handler', async () => {
    const got: unknown[] = []
    const handler: WebMcpHandler = {
      async fetch(_request, options) {
        got.push(options?.authInfo)
        return new Response(null, { status: 202 })
      },
    }
    const fromCall = await serve(handler, () => ({ authInfo: { clientId: 'call' } }))
    const fromReq = await serve(handler, (req) => {
      ;(req as IncomingMessage & { auth?: object }).auth = { clientId: 'req' }
      return undefined
    })
    await send(fromCall.port, 'POST', JSON_HEADERS, '{}')
    await send(fromReq.port, 'POST', JSON_HEADERS, '{}')
    expect(got).toEqual([{ clientId: 'call' }, { clientId: 'req' }])
  })

  it('streams the request body to the handler when no parsed body is given', async () => {
    let text: string | undefined
    const handover = webHandover({
      async fetch(request, options) {
        expect(options?.parsedBody).toBeUndefined()
        text = await request.text()
        return new Response(null, { status: 202 })
      },
    })
    const server = await listen((req, res) => void handover.handleRequest(req, res))
    running.push(server)
    const answer = await send(server.port, 'POST', JSON_HEADERS, '{"a":1}')
    expect(answer.status).toBe(202)
    expect(text).toBe('{"a":1}')
  })

  it('answers 500 with a small JSON-RPC error echoing the id when the handler throws', async () => {
    const errors: Error[] = []
    const handover = webHandover(
      {
        async fetch() {
          throw new Error('secret detail')
        },
      },
      { onError: (error) => errors.push(error) },
    )
    const server = await listen((req, res) => {
      void handover.handleRequest(req, res, { jsonrpc: '2.0', id: 9, method: 'tools/list' })
    })
    running.push(server)
    const answer = await send(server.port, 'POST', JSON_HEADERS, '')
    expect(answer.status).toBe(500)
    expect(JSON.parse(answer.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Internal server error' },
      id: 9,
    })
    expect(answer.body).not.toContain('secret')
    expect(errors.map((e) => e.message)).toEqual(['secret detail'])
  })

  it('copies the status and every header, repeated ones included', async () => {
    const server = await serve({
      async fetch() {
        const headers = new Headers({ 'content-type': 'application/json', 'x-one': '1' })
        headers.append('set-cookie', 'a=1')
        headers.append('set-cookie', 'b=2')
        return new Response('{"ok":true}', { status: 201, headers })
      },
    })
    const client = rawPost(server.port)
    expect(await eventually(() => client.received().includes('{"ok":true}'), 10_000)).toBe(true)
    const raw = client.received().toString('latin1')
    client.socket.destroy()
    expect(raw.startsWith('HTTP/1.1 201')).toBe(true)
    expect(raw).toMatch(/\r\nx-one: 1\r\n/i)
    expect(raw.match(/\r\nset-cookie: /gi)?.length).toBe(2)
    expect(raw).toContain('{"ok":true}')
  })

  it('stops pulling the answer while the client reads nothing (back-pressure)', async () => {
    const piece = new Uint8Array(256 * 1024).fill(0x61)
    let pulled = 0
    const server = await serve({
      async fetch() {
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled++
            controller.enqueue(piece)
          },
        })
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
      },
    })
    const client = rawPost(server.port, true)
    // An endless answer the client never reads: the pulls stop at what the buffers hold.
    expect(await eventually(() => pulled > 4, 10_000)).toBe(true)
    let last = -1
    const settled = await eventually(
      () => {
        const same = pulled === last
        last = pulled
        return same
      },
      10_000,
      500,
    )
    client.socket.destroy()
    expect(settled).toBe(true)
    // 1 GiB would be pulled without back-pressure long before the pulls settle.
    expect(pulled * piece.byteLength).toBeLessThan(256 * 1024 * 1024)
  })

  it('aborts the request signal and cancels the answer stream when the client goes away', async () => {
    let signal: AbortSignal | undefined
    let cancelled = false
    const server = await serve({
      async fetch(request) {
        signal = request.signal
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('event: message\ndata: {}\n\n'))
          },
          cancel() {
            cancelled = true
          },
        })
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
      },
    })
    const client = rawPost(server.port)
    expect(await eventually(() => client.received().includes('data: {}'), 10_000)).toBe(true)
    expect(signal?.aborted).toBe(false)
    client.socket.destroy()
    expect(await eventually(() => cancelled && signal?.aborted === true, 10_000)).toBe(true)
  })

  it('is frozen and refuses a handler without fetch or a non-function onError at construction', () => {
    const handover = webHandover({ fetch: async () => new Response(null) })
    expect(Object.isFrozen(handover)).toBe(true)
    expect(() => webHandover({} as WebMcpHandler)).toThrow(TypeError)
    expect(() => webHandover(null as unknown as WebMcpHandler)).toThrow(TypeError)
    expect(() =>
      webHandover(
        { fetch: async () => new Response(null) },
        { onError: 'log' as unknown as () => void },
      ),
    ).toThrow(TypeError)
  })
})
