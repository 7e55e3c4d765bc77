// The HTTP control's onRefusal hook, through a real http.Server on 127.0.0.1 and raw requests:
// one event per refusal of every step, with the code, status and control, never the caller's
// bytes; none for a request that is served; a hook that throws changes no answer. Sentinel:
// `reached`, the requests the target saw.
import type { RefusalEvent } from '@tollgate/json-budget'
import type { Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  mcpBodyAdmission,
  mcpHttpHandler,
  mcpRouteHead,
} from '../src/index.js'
import { heldRequest } from './helpers/held.js'
import { modernCall, modernHeaders } from './helpers/modern-target.js'
import { send, serveHandler } from './helpers/modern-wire.js'
import { recordingTarget } from './helpers/steps-without.js'

let running: Running[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  running = []
})

const MARKER = 'MARKER-91ad'
const LEGACY = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const PING = '{"jsonrpc":"2.0","id":7,"method":"ping"}'

async function serve(onRefusal: (event: RefusalEvent) => void) {
  const { reached, target } = recordingTarget()
  const mcp = createMcpHttpAdmission({
    body: mcpBodyAdmission({ maxBytes: 4096 }),
    route: mcpRouteHead({ tools: { echo: {} }, methods: ['tools/call', 'ping'] }),
    onRefusal,
  })
  const server = await serveHandler(mcpHttpHandler(target, mcp))
  running.push(server)
  return { reached, port: server.port }
}

async function foreignHost(port: number) {
  const held = heldRequest(
    port,
    'POST',
    '/mcp',
    { ...LEGACY, host: 'evil.example' },
    Buffer.from(PING),
  )
  held.sendBody()
  const answer = await held.response
  held.destroy()
  return answer?.status
}

describe('createMcpHttpAdmission onRefusal', () => {
  it('reports each refusal of every step once, with its code, status and control; nothing runs', async () => {
    const events: RefusalEvent[] = []
    const { reached, port } = await serve((event) => events.push(event))
    const statuses = [
      await foreignHost(port),
      (await send(port, 'DELETE', { ...LEGACY, 'mcp-protocol-version': MARKER })).status,
      (await send(port, 'POST', { ...LEGACY, 'mcp-protocol-version': MARKER }, PING)).status,
      (await send(port, 'GET', modernHeaders('echo'))).status,
      (await send(port, 'PUT', LEGACY, PING)).status,
      (await send(port, 'POST', modernHeaders('other'), modernCall('other', {}))).status,
      (await send(port, 'POST', modernHeaders('echo'), `[${modernCall('echo', {})}]`)).status,
      (await send(port, 'POST', LEGACY, `{"x":"${'a'.repeat(5000)}"}`)).status,
      (
        await send(
          port,
          'POST',
          modernHeaders('echo'),
          modernCall('echo', {}).replace('"echo"', '"ech0"'),
        )
      ).status,
    ]
    expect(statuses).toEqual([403, 400, 400, 405, 413, 400, 400, 413, 400])
    expect(events.map(({ code, status, control }) => ({ code, status, control }))).toEqual([
      { code: 'ERR_HOST_NOT_ALLOWED', status: 403, control: 'mcp-host-origin' },
      { code: 'ERR_MCP_PROTOCOL_VERSION', status: 400, control: 'mcp-protocol-version' },
      { code: 'ERR_MCP_PROTOCOL_VERSION', status: 400, control: 'mcp-protocol-version' },
      { code: 'ERR_MCP_METHOD_NOT_ALLOWED', status: 405, control: 'mcp-method' },
      { code: 'ERR_BODY_TOO_LARGE', status: 413, control: 'mcp-method' },
      { code: 'ERR_MCP_UNKNOWN_TOOL', status: 400, control: 'mcp-head' },
      { code: 'ERR_MCP_BATCH', status: 400, control: 'mcp-first-byte' },
      { code: 'ERR_BODY_TOO_LARGE', status: 413, control: 'mcp-body' },
      { code: 'ERR_MCP_HEADER_MISMATCH', status: 400, control: 'mcp-header-agreement' },
    ])
    expect(
      events.find((e) => e.code === 'ERR_BODY_TOO_LARGE' && e.control === 'mcp-body'),
    ).toMatchObject({
      limit: 4096,
      option: 'maxBytes',
    })
    for (const event of events) {
      expect(Object.isFrozen(event)).toBe(true)
      expect(JSON.stringify(event)).not.toContain(MARKER)
      expect(JSON.stringify(event)).not.toContain('evil')
    }
    expect(reached).toHaveLength(0)
    // A served request reports nothing.
    expect((await send(port, 'POST', modernHeaders('echo'), modernCall('echo', {}))).status).toBe(
      200,
    )
    expect(reached).toHaveLength(1)
    expect(events).toHaveLength(9)
  })

  it('answers the same with a hook that throws as without one (the hook never decides)', async () => {
    const throwing = await serve(() => {
      throw new Error('hook failed')
    })
    const quiet = await serve(() => {})
    for (const { port } of [throwing, quiet]) {
      expect(await foreignHost(port)).toBe(403)
      const batch = await send(port, 'POST', modernHeaders('echo'), `[${modernCall('echo', {})}]`)
      expect(batch.status).toBe(400)
      const served = await send(port, 'POST', modernHeaders('echo'), modernCall('echo', {}))
      expect(served.status).toBe(200)
    }
    expect(() => createMcpHttpAdmission({ onRefusal: 'log' as never })).toThrow(
      new TypeError('onRefusal must be a function'),
    )
  })
})
