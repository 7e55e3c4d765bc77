// The SDK line a run uses is the one its vitest project names (sdk1: 1.32, sdk2: 2.x), here and
// in the stdio fixture's child process: so the sdk2 run of the wire tests is a run on 2.x, not a
// second run on 1.32.
import { createInFlightBudget } from '@tollgate/http-admission'
import { rawPost } from '@tollgate/test-kit/http-client'
import { listen } from '@tollgate/test-kit/listen'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createMcpHttpAdmission, mcpBodyAdmission, mcpHttpHandler } from '../src/index.js'
import { McpServer, SDK, StreamableHTTPServerTransport } from './helpers/sdk-line.js'
import { StdioChild } from './helpers/stdio-child.js'

describe('the SDK line of this run', () => {
  it('is the one TOLLGATE_SDK_LINE names, in this process and in the stdio child', async () => {
    const expected = process.env.TOLLGATE_SDK_LINE === '2' ? '2' : '1'
    expect(SDK.line).toBe(expected)
    expect(SDK.name).toMatch(
      expected === '2'
        ? /^@modelcontextprotocol\/server 2\./
        : /^@modelcontextprotocol\/sdk 1\.32\./,
    )
    const child = await StdioChild.start(['bounded'])
    try {
      expect(child.stderr).toContain(`ready sdk=${expected}`)
    } finally {
      await child.stop()
    }
  })

  it("admits a batch of 101 calls as one body, then the SDK's own 100-message limit refuses it", async () => {
    let echo = 0
    const handler = mcpHttpHandler(
      async () => {
        const server = new McpServer({ name: 'batch', version: '1.0.0' })
        server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => {
          echo++
          return { content: [{ type: 'text', text }] }
        })
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        })
        await server.connect(transport)
        return transport
      },
      createMcpHttpAdmission({
        body: mcpBodyAdmission({ budget: createInFlightBudget(64 * 1024 * 1024) }),
      }),
    )
    const running = await listen((req, res) => {
      handler(req, res).catch(() => res.destroy())
    })
    try {
      const batch = Array.from({ length: 101 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'a' } },
      }))
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      }
      const response = await rawPost(running.port, headers, Buffer.from(JSON.stringify(batch)))
      // Both lines' transports cap a batch at 100 messages and apply it to the parsed body
      // too, so it runs after tollgate's admission: the two compose.
      expect(response.status).toBe(400)
      expect(JSON.parse(response.body)).toMatchObject({ id: null, error: { code: -32600 } })
      expect(echo).toBe(0)
      const hundred = await rawPost(
        running.port,
        headers,
        Buffer.from(JSON.stringify(batch.slice(1))),
      )
      expect(hundred.status).toBe(200)
      expect(JSON.parse(hundred.body)).toHaveLength(100)
      expect(echo).toBe(100)
    } finally {
      await running.close()
    }
  })
})
