// The route and principal of the HTTP control's refusal events, through a real http.Server on
// 127.0.0.1 and raw requests: every step reports the route's configured name and the caller's
// reportable key; an anonymous caller (keyed by its address in the anonymous pool) appears as
// `anonymous#<hash>`, never its address; a named principal as the host passed it. The request
// path and every header value stay out. Sentinel: `reached`, the requests the target saw.
import { refusalPrincipal } from '@tollgate/http-admission'
import type { RefusalEvent } from '@tollgate/json-budget'
import type { Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  mcpBodyAdmission,
  mcpHttpHandler,
  mcpRouteHead,
} from '../src/index.js'
import { modernCall, modernHeaders } from './helpers/modern-target.js'
import { send, serveHandler } from './helpers/modern-wire.js'
import { recordingTarget } from './helpers/steps-without.js'

let running: Running[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  running = []
})

const MARKER = 'MARKER-3b7f'
const LEGACY = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const PING = '{"jsonrpc":"2.0","id":7,"method":"ping"}'

async function serve(principal: string | undefined) {
  const events: RefusalEvent[] = []
  const { reached, target } = recordingTarget()
  const mcp = createMcpHttpAdmission({
    body: mcpBodyAdmission({ maxBytes: 4096 }),
    route: mcpRouteHead({ name: 'mcp-main', tools: { echo: {} }, methods: ['tools/call', 'ping'] }),
    onRefusal: (event) => events.push(event),
  })
  const handler = mcpHttpHandler(target, mcp)
  const server = await serveHandler((req, res) =>
    handler(req, res, principal === undefined ? undefined : { principal }),
  )
  running.push(server)
  return { events, reached, port: server.port }
}

async function refuseAtEveryStep(port: number): Promise<number[]> {
  return [
    (await send(port, 'DELETE', { ...LEGACY, 'mcp-protocol-version': MARKER })).status,
    (await send(port, 'GET', modernHeaders('echo'))).status,
    (await send(port, 'PUT', LEGACY, PING)).status,
    (await send(port, 'POST', modernHeaders('other'), modernCall('other', {}))).status,
    (await send(port, 'POST', modernHeaders('echo'), `[${modernCall('echo', {})}]`)).status,
    (await send(port, 'POST', LEGACY, `{"x":"${MARKER}${'a'.repeat(5000)}"}`)).status,
    (
      await send(
        port,
        'POST',
        modernHeaders('echo'),
        modernCall('echo', {}).replace('"echo"', '"ech0"'),
      )
    ).status,
  ]
}

describe('createMcpHttpAdmission onRefusal (route and principal)', () => {
  it('reports an anonymous caller as its pool and a keyed hash, never its address, with the route name', async () => {
    const { events, reached, port } = await serve(undefined)
    expect(await refuseAtEveryStep(port)).toEqual([400, 405, 413, 400, 400, 413, 400])
    expect(reached).toHaveLength(0)
    expect(events).toHaveLength(7)
    const anonymous = refusalPrincipal('ip:127.0.0.1', 'anonymous')
    expect(anonymous).toMatch(/^anonymous#[0-9a-f]{16}$/)
    for (const event of events) {
      expect(event.route, event.control).toBe('mcp-main')
      expect(event.principal, event.control).toBe(anonymous)
      expect(JSON.stringify(event)).not.toContain('127.0.0.1')
      expect(JSON.stringify(event)).not.toContain(MARKER)
      expect(JSON.stringify(event)).not.toContain('/mcp')
    }
  })

  it('reports the principal the host passed, as it is', async () => {
    const { events, port } = await serve('cred:ada')
    await refuseAtEveryStep(port)
    expect(events).toHaveLength(7)
    for (const event of events) {
      expect(event).toMatchObject({ route: 'mcp-main', principal: 'cred:ada' })
    }
  })
})
