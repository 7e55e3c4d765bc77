// Through a real child process (test/fixtures/stdio-server.mjs on the built package) driven by
// each SDK's own stdio client, 1.32 (`@modelcontextprotocol/sdk`) and 2.4
// (`@modelcontextprotocol/client`): a refused line reaches the caller as a rejected call at
// once, because the refusal carries the id both clients wrote (after `params`, last in the line).
import { fileURLToPath } from 'node:url'
import { Client as ClientV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, describe, expect, it } from 'vitest'

const FIXTURE = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url))
// Far above any answer on a loaded machine, far below the clients' own 60 s default: a call
// that is never answered fails with the clients' timeout code (-32001), not the refusal's.
const CALL = { timeout: 30_000 }

interface AnyClient {
  callTool(
    params: { name: string; arguments: Record<string, unknown> },
    schema?: undefined,
    options?: { timeout: number },
  ): Promise<{ content?: unknown }>
  close(): Promise<void>
}

const LINES = [
  {
    name: '1.32 Client (@modelcontextprotocol/sdk)',
    async connect(args: string[]): Promise<AnyClient> {
      const client = new ClientV1({ name: 'probe', version: '1.0.0' })
      await client.connect(
        new StdioV1({ command: process.execPath, args: [FIXTURE, ...args], stderr: 'pipe' }),
      )
      return client as unknown as AnyClient
    },
  },
  {
    name: '2.4 Client (@modelcontextprotocol/client)',
    async connect(args: string[]): Promise<AnyClient> {
      const client = new ClientV2({ name: 'probe', version: '1.0.0' })
      await client.connect(
        new StdioV2({ command: process.execPath, args: [FIXTURE, ...args], stderr: 'pipe' }),
      )
      return client as unknown as AnyClient
    },
  },
] as const

const open: AnyClient[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})))
})

async function connect(line: (typeof LINES)[number], args: string[]): Promise<AnyClient> {
  const client = await line.connect(args)
  open.push(client)
  return client
}

function nested(levels: number): unknown {
  let value: unknown = []
  for (let i = 1; i < levels; i++) value = [value]
  return value
}

async function echoCalls(client: AnyClient): Promise<number> {
  const result = (await client.callTool({ name: 'stats', arguments: {} }, undefined, CALL)) as {
    content: [{ text: string }]
  }
  return JSON.parse(result.content[0].text).echoCalls
}

describe.each(LINES)('BoundedStdioServerTransport under the $name', (line) => {
  it('rejects a call whose line is too deep with -32700 ERR_JSON_TOO_DEEP, at once, and never runs the tool', async () => {
    const client = await connect(line, ['bounded'])
    const call = client.callTool(
      { name: 'echo', arguments: { text: 'a', nest: nested(80) } },
      undefined,
      CALL,
    )
    await expect(call).rejects.toMatchObject({
      code: -32700,
      data: { code: 'ERR_JSON_TOO_DEEP', limit: 64 },
    })
    expect(await echoCalls(client)).toBe(0)
  })

  it('rejects an over-cap call with ERR_LINE_TOO_LARGE and, with oversizedLine skip, serves the next call', async () => {
    const client = await connect(line, [
      'bounded',
      '--max-line-bytes=4096',
      '--oversized-line=skip',
    ])
    const big = client.callTool(
      { name: 'echo', arguments: { text: 'x'.repeat(20_000) } },
      undefined,
      CALL,
    )
    await expect(big).rejects.toMatchObject({
      code: -32000,
      data: { code: 'ERR_LINE_TOO_LARGE', limit: 4096 },
    })
    const next = await client.callTool({ name: 'echo', arguments: { text: 'ok' } }, undefined, CALL)
    expect(next.content).toEqual([{ type: 'text', text: 'len:2' }])
    expect(await echoCalls(client)).toBe(1)
  })

  it('ends the session at an over-cap line by default (oversizedLine end): the next call fails', async () => {
    const client = await connect(line, ['bounded', '--max-line-bytes=4096'])
    const big = client.callTool(
      { name: 'echo', arguments: { text: 'x'.repeat(20_000) } },
      undefined,
      CALL,
    )
    // The id is past the first 4096 bytes: the refusal cannot name the call, the input ends and
    // the server exits, so the call fails with the closed connection instead.
    await expect(big).rejects.toBeInstanceOf(Error)
    await expect(
      client.callTool({ name: 'echo', arguments: { text: 'ok' } }, undefined, CALL),
    ).rejects.toBeInstanceOf(Error)
  })
})

describe('StdioServerTransport (the SDK control, without tollgate)', () => {
  it.each(LINES)(
    'runs the too-deep call the bounded transport refuses, under the $name',
    async (line) => {
      const client = await connect(line, ['sdk'])
      const result = await client.callTool(
        { name: 'echo', arguments: { text: 'a', nest: nested(80) } },
        undefined,
        CALL,
      )
      expect(result.content).toEqual([{ type: 'text', text: 'len:1' }])
      expect(await echoCalls(client)).toBe(1)
    },
  )
})
