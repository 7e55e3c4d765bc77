// The `onRefusal` hooks of the MCP path over a real http.Server on 127.0.0.1 in front of an SDK
// 2.4 server, with a raw client that ignores schemas: every step's refusal (Host/Origin,
// version, method, batch, body, header agreement, route head) reaches the hook of the control
// that refused once, with its code and the status answered, and the SDK server is never built;
// a throwing hook leaves the answers as they were; without the hook nothing is counted. And the
// bounded stdio transport reports each refused line.
import { createInFlightBudget } from '@tollgate/http-admission'
import type { RefusalEvent, RefusalHook } from '@tollgate/json-budget'
import { head, RawClient, type RawResponse } from '@tollgate/test-kit/http-client'
import type { Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import {
  BoundedStdioServerTransport,
  type McpQuota,
  mcpBodyAdmission,
  mcpHttpHandler,
  mcpRouteHead,
} from '../src/index.js'
import { linePipes } from './helpers/line-pipes.js'
import { modernCall, modernHeaders, modernTarget } from './helpers/modern-target.js'
import { send, serveHandler } from './helpers/modern-wire.js'

let running: Running[] = []
let closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.map((c) => c()))
  await Promise.all(running.map((r) => r.close()))
  running = []
  closers = []
})

const LEGACY = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

async function serve(
  onRefusal: RefusalHook | undefined,
  controls: Parameters<typeof mcpHttpHandler>[2] = {},
) {
  const fixture = modernTarget()
  closers.push(fixture.close)
  const server = await serveHandler(mcpHttpHandler(fixture.target, { onRefusal }, controls))
  running.push(server)
  return { port: server.port, seen: fixture.seen }
}

/** A POST declaring `declared` bytes that sends only `start`, read to its answer. */
async function declaredPost(
  port: number,
  headers: Record<string, string>,
  declared: number,
  start = '{',
): Promise<RawResponse> {
  const client = new RawClient(port)
  const lines = ['POST /mcp HTTP/1.1', `host: 127.0.0.1:${port}`, `content-length: ${declared}`]
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  await client.write(Buffer.concat([Buffer.from(head(lines)), Buffer.from(start)]))
  const answer = await client.response()
  client.destroy()
  return answer
}

const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${'['.repeat(70)}${']'.repeat(70)}}`

/** One bad request per step of the path, and the code and control it is refused with. */
const STEPS: readonly {
  code: string
  control: string
  send: (port: number) => Promise<RawResponse>
}[] = [
  {
    code: 'ERR_ORIGIN_NOT_ALLOWED',
    control: 'mcp-host-origin',
    send: (port) => send(port, 'POST', { ...LEGACY, origin: 'http://evil.example' }, '{}'),
  },
  {
    code: 'ERR_MCP_PROTOCOL_VERSION',
    control: 'mcp-version',
    send: (port) => send(port, 'GET', { ...LEGACY, 'mcp-protocol-version': '1999-01-01' }),
  },
  {
    code: 'ERR_MCP_METHOD_NOT_ALLOWED',
    control: 'mcp-method',
    send: (port) => send(port, 'GET', modernHeaders('echo')),
  },
  {
    code: 'ERR_MCP_BATCH',
    control: 'mcp-batch',
    send: (port) => send(port, 'POST', modernHeaders('echo'), `[${modernCall('echo', {})}]`),
  },
  {
    code: 'ERR_BODY_TOO_LARGE',
    control: 'body-admission',
    send: (port) => declaredPost(port, LEGACY, 5 * 1024 * 1024),
  },
  {
    code: 'ERR_JSON_TOO_DEEP',
    control: 'body-admission',
    send: (port) => send(port, 'POST', LEGACY, deep),
  },
  {
    code: 'ERR_JSON_SYNTAX',
    control: 'mcp-body',
    send: (port) => send(port, 'POST', LEGACY, ''),
  },
  {
    code: 'ERR_MCP_HEADER_MISMATCH',
    control: 'mcp-header-agreement',
    send: (port) => send(port, 'POST', modernHeaders('route'), modernCall('echo', { text: 'x' })),
  },
]

describe('mcpHttpHandler onRefusal', () => {
  it('reports each step refusal once to the path hook, with the status answered; the SDK server is never built', async () => {
    const events: RefusalEvent[] = []
    const { port, seen } = await serve((event) => {
      events.push(event)
    })
    const statuses: number[] = []
    for (const step of STEPS) statuses.push((await step.send(port)).status)
    await expectEvents(events, statuses)
    expect(seen.servers).toBe(0)
    // An admitted call after them: no event of its own.
    const ok = await send(port, 'POST', modernHeaders('echo'), modernCall('echo', { text: 'hi' }))
    expect(ok.status).toBe(200)
    expect(seen.echo).toBe(1)
    expect(events).toHaveLength(STEPS.length)
  })

  it('reports the refusals of a route head the host built to that control’s own hook', async () => {
    const routeEvents: RefusalEvent[] = []
    const pathEvents: RefusalEvent[] = []
    let quotaOpen = true
    const quota: McpQuota = { acquire: () => (quotaOpen ? { ok: true } : { ok: false }) }
    const route = mcpRouteHead({
      tools: { echo: { maxBodyBytes: 256 } },
      quota,
      onRefusal: (event) => {
        routeEvents.push(event)
      },
    })
    const { port, seen } = await serve((event) => pathEvents.push(event), { route })
    const unknown = await send(port, 'POST', modernHeaders('nope'), modernCall('nope', {}))
    const overCap = await declaredPost(port, modernHeaders('echo'), 1024)
    quotaOpen = false
    // The quota is asked on either era: a 2025 ping, under every cap.
    const overQuota = await send(port, 'POST', LEGACY, '{"jsonrpc":"2.0","id":1,"method":"ping"}')
    expect([unknown.status, overCap.status, overQuota.status]).toEqual([400, 413, 429])
    expect(routeEvents).toEqual([
      { code: 'ERR_MCP_UNKNOWN_TOOL', status: 400, control: 'mcp-route-head' },
      { code: 'ERR_BODY_TOO_LARGE', status: 413, limit: 256, control: 'mcp-route-head' },
      { code: 'ERR_MCP_QUOTA', status: 429, control: 'mcp-route-head' },
    ])
    expect(pathEvents).toEqual([])
    expect(seen.servers).toBe(0)
  })

  it('reports a body control’s refusals to its own hook when the host built it', async () => {
    const bodyEvents: RefusalEvent[] = []
    const fixture = modernTarget()
    closers.push(fixture.close)
    const body = mcpBodyAdmission({
      maxBytes: 1024,
      budget: createInFlightBudget(16 * 1024 * 1024),
      onRefusal: (event) => {
        bodyEvents.push(event)
      },
    })
    const server = await serveHandler(mcpHttpHandler(fixture.target, { body }))
    running.push(server)
    const answer = await declaredPost(server.port, LEGACY, 2048)
    expect(answer.status).toBe(413)
    expect(bodyEvents).toEqual([
      {
        code: 'ERR_BODY_TOO_LARGE',
        status: 413,
        limit: 1024,
        option: 'maxBytes',
        control: 'body-admission',
      },
    ])
    expect(fixture.seen.servers).toBe(0)
  })

  it('leaves every answer intact when the hook throws or rejects', async () => {
    let calls = 0
    const { port, seen } = await serve(() => {
      calls++
      if (calls % 2 === 1) throw new Error('metrics backend down')
      return Promise.reject(new Error('late failure')) as unknown as undefined
    })
    const withHook: number[] = []
    for (const step of STEPS) withHook.push((await step.send(port)).status)
    const plain = await serve(undefined)
    const without: number[] = []
    for (const step of STEPS) without.push((await step.send(plain.port)).status)
    expect(withHook).toEqual(without)
    expect(withHook[4]).toBe(413)
    expect(calls).toBe(STEPS.length)
    expect(seen.servers).toBe(0)
  })

  it('counts nothing with the hook removed, while the same refusals are answered', async () => {
    let counted = 0
    const count: RefusalHook = () => {
      counted++
    }
    const withHook = await serve(count)
    const without = await serve(undefined)
    for (const { port } of [withHook, without]) {
      for (const step of STEPS) expect((await step.send(port)).status).toBeGreaterThanOrEqual(400)
    }
    expect(counted).toBe(STEPS.length)
    expect(without.seen.servers).toBe(0)
  })

  it('refuses a hook that is not a function at construction', () => {
    const target = modernTarget().target
    expect(() => mcpHttpHandler(target, { onRefusal: 'log' as never })).toThrow(/onRefusal/)
    expect(() => mcpRouteHead({ onRefusal: 'log' as never })).toThrow(/onRefusal/)
    expect(
      () => new BoundedStdioServerTransport(undefined, undefined, { onRefusal: 1 as never }),
    ).toThrow(/onRefusal/)
  })
})

async function expectEvents(events: RefusalEvent[], statuses: number[]): Promise<void> {
  expect(events.map((e) => ({ code: e.code, control: e.control, status: e.status }))).toEqual(
    STEPS.map((step, i) => ({ code: step.code, control: step.control, status: statuses[i] })),
  )
  for (const event of events) expect(Object.isFrozen(event)).toBe(true)
}

describe('BoundedStdioServerTransport onRefusal', () => {
  it('reports every refused line, past the repeat window of onerror, with no status', async () => {
    const events: RefusalEvent[] = []
    const errors: Error[] = []
    const { input, output, written } = linePipes()
    const transport = new BoundedStdioServerTransport(input, output, {
      maxLineBytes: 64,
      oversizedLine: 'skip',
      onRefusal: (event) => {
        events.push(event)
      },
    })
    transport.onerror = (error) => errors.push(error)
    await transport.start()
    for (let i = 0; i < 3; i++) input.push('{"jsonrpc":"2.0","id":1,"method":"x","params":[\n')
    input.push(`${'{"jsonrpc":"2.0","id":2,"method":"x"'.padEnd(100, ' ')}}\n`)
    await new Promise<void>((resolve) => {
      const check = () => (written().length >= 4 ? resolve() : setTimeout(check, 5))
      check()
    })
    await transport.close()
    expect(events.map((e) => e.code)).toEqual([
      'ERR_JSON_SYNTAX',
      'ERR_JSON_SYNTAX',
      'ERR_JSON_SYNTAX',
      'ERR_LINE_TOO_LARGE',
    ])
    expect(events[3]).toEqual({
      code: 'ERR_LINE_TOO_LARGE',
      status: undefined,
      limit: 64,
      control: 'mcp-stdio',
    })
    // onerror is windowed: two kinds reported at once, the repeats held for the window's end.
    expect(errors.length).toBeLessThan(events.length)
  })
})
