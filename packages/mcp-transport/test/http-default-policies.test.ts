// The MCP Streamable HTTP path's default body control against two smuggling shapes, through a
// real http.Server on 127.0.0.1 with a raw client: a repeated key (JSON.parse keeps the last,
// another reader may take the first) and a `__proto__` key in tool arguments. Sentinel: `seen`,
// what the SDK server behind the path ran.
import { createInFlightBudget } from '@tollgate/http-admission'
import { rawPost } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { MCP_POST_HEADERS as HEADERS } from '@tollgate/test-kit/mcp-initialize'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  type McpBodyOptions,
  mcpBodyAdmission,
  mcpHttpHandler,
} from '../src/index.js'
import { echoTarget } from './helpers/echo-target.js'

let running: Running[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  running = []
})

async function serve(body: McpBodyOptions) {
  const { seen, target } = echoTarget()
  const handle = mcpHttpHandler(
    target,
    createMcpHttpAdmission({
      body: mcpBodyAdmission({ budget: createInFlightBudget(1 << 20), ...body }),
    }),
  )
  const server = await listen((req, res) => void handle(req, res).catch(() => res.destroy()), {
    path: '/mcp',
  })
  running.push(server)
  return { port: server.port, seen }
}

const call = (args: string, extra = '') =>
  Buffer.from(
    `{"jsonrpc":"2.0","id":1,"method":"tools/call"${extra},"params":{"name":"echo","arguments":${args}}}`,
  )

const ATTACKS: [string, Buffer, string][] = [
  ['a repeated key', call('{"text":"abc","text":"abcdef"}'), 'ERR_JSON_DUPLICATE_KEY'],
  ['a __proto__ key', call('{"text":"abc","__proto__":{"admin":true}}'), 'ERR_JSON_PROTO_KEY'],
]

describe('mcpBodyAdmission', () => {
  it.each(ATTACKS)(
    'refuses %s with 422 and its code by default, and the server never runs',
    async (_name, body, code) => {
      const { port, seen } = await serve({})
      const response = await rawPost(port, HEADERS, body)
      expect(response.status).toBe(422)
      expect(JSON.parse(response.body).error.data).toMatchObject({ code })
      expect(seen).toEqual({ transports: 0, echo: 0 })
    },
  )

  it.each(ATTACKS)('control: with the policy "allow", %s reaches the tool', async (_name, body) => {
    const { port, seen } = await serve({ duplicateKeys: 'allow', protoKeys: 'allow' })
    const response = await rawPost(port, HEADERS, body)
    expect(response.status).toBe(200)
    expect(seen.echo).toBe(1)
  })
})
