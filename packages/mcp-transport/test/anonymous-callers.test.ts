// Fair per caller through mcpHttpHandler on a real http.Server: a request without a principal
// is keyed by its address (here told apart by a trusted loopback proxy's X-Forwarded-For) in
// the anonymous pool. One caller holding slow bodies keeps a quarter of the pool's bodies; the
// control passes every anonymous request under one label, as the reference server used to.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { callerKeys, createInFlightBudget, principalUsage } from '@tollgate/http-admission'
import { head, RawClient } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  type McpHttpCall,
  mcpBodyAdmission,
  mcpHttpHandler,
} from '../src/index.js'
import { echoTarget } from './helpers/echo-target.js'

let running: Running | undefined
const clients: RawClient[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy()
  await running?.close()
  running = undefined
})

const CALL =
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}'
const ATTACKER = '198.51.100.7'

async function serve(callOf: (req: IncomingMessage) => McpHttpCall) {
  const budget = createInFlightBudget(1 << 24)
  const { seen, target } = echoTarget()
  const handler = mcpHttpHandler(
    target,
    createMcpHttpAdmission({
      body: mcpBodyAdmission({ budget }),
      callers: callerKeys({ trustedProxies: ['127.0.0.1'] }),
    }),
  )
  running = await listen(
    (req: IncomingMessage, res: ServerResponse) => void handler(req, res, callOf(req)),
    { path: '/mcp' },
  )
  return { seen, budget, port: running.port }
}

/** A POST from `who` declaring `length` bytes, of which `body` is sent; the socket is kept. */
async function post(port: number, who: string, length: number, body: string) {
  const client = new RawClient(port)
  clients.push(client)
  await client.write(
    head([
      'POST /mcp HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      `Content-Length: ${length}`,
      `X-Forwarded-For: ${who}`,
    ]),
  )
  await client.write(body)
  return client
}

describe('mcpHttpHandler with callers', () => {
  it('holds one anonymous address to its share of the pool while another anonymous caller is served', async () => {
    const { seen, budget, port } = await serve(() => ({}))
    await post(port, ATTACKER, 1000, '[')
    await post(port, ATTACKER, 1000, '[')
    const key = `ip:${ATTACKER}`
    while (principalUsage(budget, key).bodies < 2) await new Promise((r) => setTimeout(r, 5))
    const refused = await (await post(port, ATTACKER, 1000, '[')).response()
    expect(refused.status).toBe(503)
    expect(JSON.parse(refused.body).error.data).toEqual({
      code: 'ERR_ADMISSION_PRINCIPAL_BUSY',
      limit: 2,
    })
    const served = await (await post(port, '203.0.113.9', CALL.length, CALL)).response()
    expect(served.status).toBe(200)
    expect(seen.echo).toBe(1)
  })

  it('control: with every anonymous caller under one label, 8 slow bodies of one caller starve the others', async () => {
    const { seen, budget, port } = await serve(() => ({ principal: 'anonymous' }))
    for (let i = 0; i < 8; i++) await post(port, ATTACKER, 1000, '[')
    while (principalUsage(budget, 'anonymous').bodies < 8) {
      await new Promise((r) => setTimeout(r, 5))
    }
    const starved = await (await post(port, '203.0.113.9', CALL.length, CALL)).response()
    expect(starved.status).toBe(503)
    expect(JSON.parse(starved.body).error.data.code).toBe('ERR_ADMISSION_PRINCIPAL_BUSY')
    expect(seen.echo).toBe(0)
  })
})
