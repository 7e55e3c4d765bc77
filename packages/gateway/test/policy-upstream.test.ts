import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toolGuard, type UpstreamTool } from '../src/tool-guard.js'

// A real upstream: @modelcontextprotocol/server-everything spawned from this package's
// node_modules, spoken to by a raw JSON-RPC client over stdio (no SDK, no schema on this side).

const BIN = new URL('../node_modules/.bin/mcp-server-everything', import.meta.url).pathname

class RawClient {
  readonly #child: ChildProcessWithoutNullStreams
  readonly #waiting = new Map<number, (message: { result?: unknown; error?: unknown }) => void>()
  #buffer = ''
  #id = 0

  constructor() {
    this.#child = spawn(BIN, ['stdio'], { stdio: ['pipe', 'pipe', 'pipe'] })
    this.#child.stderr.resume()
    this.#child.stdout.setEncoding('utf8')
    this.#child.stdout.on('data', (chunk: string) => {
      this.#buffer += chunk
      let end = this.#buffer.indexOf('\n')
      while (end >= 0) {
        const line = this.#buffer.slice(0, end)
        this.#buffer = this.#buffer.slice(end + 1)
        const message = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown }
        if (typeof message.id === 'number') this.#waiting.get(message.id)?.(message)
        end = this.#buffer.indexOf('\n')
      }
    })
  }

  request(method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
    const id = ++this.#id
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve)
      this.#child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    })
  }

  notify(method: string): void {
    this.#child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`)
  }

  close(): void {
    this.#child.kill()
  }
}

let client: RawClient
let tools: UpstreamTool[]

beforeAll(async () => {
  client = new RawClient()
  await client.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '0' },
  })
  client.notify('notifications/initialized')
  tools = ((await client.request('tools/list', {})).result as { tools: UpstreamTool[] }).tools
  // A generous deadline: npx-installed servers start slowly on a loaded machine.
}, 120_000)

afterAll(() => {
  client?.close()
})

describe('toolGuard', () => {
  it('compiles the live server-everything tools/list whole, as the fixture holds it', () => {
    const fixture = JSON.parse(
      readFileSync(
        new URL('./fixtures/policy-server-everything-tools.json', import.meta.url),
        'utf8',
      ),
    ) as { tools: UpstreamTool[] }
    expect(tools).toEqual(fixture.tools)
    expect(toolGuard().load(tools).quarantined).toEqual([])
  })

  it('refuses the unknown key the upstream would otherwise strip and run with (the control removed)', async () => {
    const guard = toolGuard()
    guard.load(tools)
    const args = { message: 'hi', injectedKey: 'x' }
    expect(guard.checkArguments('echo', args)?.code).toBe('ERR_TOOL_ARGUMENTS')
    // Without the guard the call reaches the upstream, which runs it: its SDK drops the key.
    const direct = (await client.request('tools/call', { name: 'echo', arguments: args }))
      .result as {
      isError?: boolean
      content: { text: string }[]
    }
    expect(direct.isError).not.toBe(true)
    expect(direct.content[0]?.text).toContain('hi')
    expect(guard.checkArguments('echo', { message: 'hi' })).toBeUndefined()
  })

  it('admits the structuredContent the upstream returns against its own outputSchema', async () => {
    const guard = toolGuard()
    guard.load(tools)
    const args = { location: 'Chicago' }
    expect(guard.checkArguments('get-structured-content', args)).toBeUndefined()
    const result = (
      await client.request('tools/call', { name: 'get-structured-content', arguments: args })
    ).result
    expect(guard.checkResult('get-structured-content', result)).toBeUndefined()
  })
})
