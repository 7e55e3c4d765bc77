// Both eras over stdio, through a real child process on the SDK 2.4 line: `serveStdio` with
// BoundedStdioServerTransport (and the result budget) as its transport. A 2026-07-28 client
// opens without `initialize`; the bounded transport frames and judges its lines as it does a
// 2025 client's. Runs in the sdk2 project only (the 1.32 line has no 2026-07-28 era).
import { afterEach, describe, expect, it } from 'vitest'
import { StdioChild } from './helpers/stdio-child.js'

const v2 = process.env.TOLLGATE_SDK_LINE === '2'
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
}

let children: StdioChild[] = []
afterEach(async () => {
  for (const child of children) child.proc.kill()
  await Promise.all(children.map((c) => c.exited))
  children = []
})

async function start(mode: 'bounded' | 'sdk'): Promise<StdioChild> {
  const child = await StdioChild.start([mode, '--serve-stdio'])
  children.push(child)
  return child
}

function modernCall(id: number, text: string, extraMeta: object = {}) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text }, _meta: { ...META, ...extraMeta } },
  }
}

/** `[[[…]]]` nested `depth` containers deep; under `params._meta` 62 make a depth-65 line. */
const nested = (depth: number): unknown => {
  let value: unknown = 0
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

describe.skipIf(!v2)('BoundedStdioServerTransport under serveStdio', () => {
  it('serves a 2026-07-28 client that opens without initialize', async () => {
    const child = await start('bounded')
    child.send(modernCall(1, 'modern'))
    const answer = await child.response(1)
    expect(answer.result.content).toEqual([{ type: 'text', text: 'len:6' }])
  })

  it('serves a 2025 client on another connection of the same server', async () => {
    const child = await start('bounded')
    child.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    })
    expect((await child.response(1)).result.protocolVersion).toBe('2025-11-25')
    child.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    child.call(2, 'echo', { text: 'legacy' })
    expect((await child.response(2)).result.content[0].text).toBe('len:6')
  })

  it('refuses a malformed and a too-deep 2026-07-28 line and serves the next', async () => {
    const child = await start('bounded')
    child.write('{"jsonrpc":"2.0","id":1,\n')
    child.send(modernCall(2, 'deep', { deep: nested(62) }))
    child.send(modernCall(3, 'next'))
    const refused = await child.waitFor((m) => m.id === null && m.error?.code === -32700)
    expect(refused.error.data.code).toBe('ERR_JSON_SYNTAX')
    const deep = await child.waitFor((m) => m.error?.data?.code === 'ERR_JSON_TOO_DEEP')
    // The too-deep line names its request (id 2, written after its params): the client's call
    // fails at once; the malformed one names no method, so it is answered under `id: null`.
    expect(deep.id).toBe(2)
    expect((await child.response(3)).result.content[0].text).toBe('len:4')
    // The fixture's `stats` tool: echo ran once (for `next`), never for the refused lines.
    child.send({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'stats', arguments: {}, _meta: META },
    })
    const stats = JSON.parse((await child.response(4)).result.content[0].text)
    expect(stats.echoCalls).toBe(1)
  })

  it('runs the tool on the too-deep 2026-07-28 line with the SDK transport alone (the control)', async () => {
    const child = await start('sdk')
    child.send(modernCall(2, 'deep', { deep: nested(62) }))
    expect((await child.response(2)).result.content[0].text).toBe('len:4')
  })
})
