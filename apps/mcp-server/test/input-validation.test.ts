// Input validation, live: the real server over Streamable HTTP, a raw client that ignores the
// schemas (a schema-following client could never send what is refused here).
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { loadSchemaRegistry } from '@tollgate/mcp-validation'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RawSession, RawStdio, resultJson, toolResult } from './helpers/raw-client.js'
import { ALICE, type LiveServer, startServer } from './helpers/server.js'

const SCHEMAS = fileURLToPath(new URL('../../../schemas/mcp/', import.meta.url))
const MARKER = 'MARKER-7f3a9c'

let server: LiveServer
let lifted: LiveServer
let probe: LiveServer

beforeAll(async () => {
  ;[server, lifted, probe] = await Promise.all([
    startServer(),
    startServer(['--unsafe-disable-input-validation']),
    startServer(['--unsafe-register-unpublished-tool']),
  ])
})
afterAll(async () => {
  await Promise.all([server.stop(), lifted.stop(), probe.stop()])
})

const runs = (s: LiveServer, tool: string) =>
  s.audit.named('tool_invoked').filter((e) => e.tool === tool).length
const searchArgs = { projectId: 'atlas', query: 'admission', limit: 1 }

/** `{ projectId, query, pad: <depth containers> }`: depth of the arguments = depth + 1. */
function nested(depth: number): unknown {
  let v: unknown = []
  for (let i = 1; i < depth; i++) v = [v]
  return { ...searchArgs, pad: v }
}

describe('withInputValidation on the reference server', () => {
  it('refuses an unknown top-level key and the handler does not run', async () => {
    const s = await RawSession.open(server.url('/mcp'), ALICE)
    const before = runs(server, 'knowledge.search')
    const res = await s.call('knowledge.search', { ...searchArgs, sort: 'desc' })
    expect(toolResult(res)).toEqual({
      content: [
        {
          type: 'text',
          text: 'Invalid arguments for tool knowledge.search: /sort fails unevaluatedProperties false',
        },
      ],
      isError: true,
    })
    expect(runs(server, 'knowledge.search')).toBe(before)
  })

  it('serves the call with the unknown key dropped when validation is lifted', async () => {
    const s = await RawSession.open(lifted.url('/mcp'), ALICE)
    const before = runs(lifted, 'knowledge.search')
    const baseline = await s.call('knowledge.search', searchArgs)
    const withKey = await s.call('knowledge.search', { ...searchArgs, sort: 'desc' })
    expect(toolResult(withKey).isError).toBeUndefined()
    expect(withKey.text).toBe(baseline.text)
    expect(runs(lifted, 'knowledge.search')).toBe(before + 2)
    expect(lifted.audit.raw.join('\n')).toContain('INPUT VALIDATION IS DISABLED')
  })

  it('makes a registered tool without a published schema unreachable, byte-identical to a tool that exists nowhere', async () => {
    const s = await RawSession.open(probe.url('/mcp'), ALICE)
    const unpublished = await s.call('probe.unpublished', {})
    const nowhere = await s.call('no.such.tool', {})
    expect(JSON.parse(unpublished.text).error).toEqual({ code: -32602, message: 'Unknown tool' })
    expect(unpublished.text).toBe(nowhere.text)
    expect(runs(probe, 'probe.unpublished')).toBe(0)
    const listed = JSON.parse((await s.post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).text)
    expect(listed.result.tools.map((t: { name: string }) => t.name)).not.toContain(
      'probe.unpublished',
    )
  })

  it('reaches the unpublished tool once validation is lifted (the control is what makes it unreachable)', async () => {
    const unsafe = await startServer([
      '--unsafe-register-unpublished-tool',
      '--unsafe-disable-input-validation',
    ])
    try {
      const s = await RawSession.open(unsafe.url('/mcp'), ALICE)
      const res = await s.call('probe.unpublished', {})
      expect(resultJson(res)).toEqual({ probe: 'ran' })
      expect(runs(unsafe, 'probe.unpublished')).toBe(1)
    } finally {
      await unsafe.stop()
    }
  })

  it('refuses an unknown top-level key over stdio and the handler does not run', async () => {
    const stdio = new RawStdio()
    try {
      await stdio.initialize()
      const line = await stdio.request({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'knowledge.search', arguments: { ...searchArgs, sort: 'desc' } },
      })
      expect(JSON.parse(line).result).toEqual({
        content: [
          {
            type: 'text',
            text: 'Invalid arguments for tool knowledge.search: /sort fails unevaluatedProperties false',
          },
        ],
        isError: true,
      })
      expect(stdio.audit.named('tool_invoked')).toHaveLength(0)
    } finally {
      await stdio.stop()
    }
  })

  it('answers bounded refusals that never echo the caller value or an oversized key', async () => {
    const s = await RawSession.open(server.url('/mcp'), ALICE)
    const longQuery = await s.call('knowledge.search', {
      projectId: 'atlas',
      query: MARKER.repeat(400),
    })
    const longKey = await s.call('knowledge.search', {
      ...searchArgs,
      [MARKER.repeat(5000)]: MARKER,
    })
    const badValue = await s.call('knowledge.search', { projectId: `${MARKER}-Upper`, query: 'x' })
    for (const res of [longQuery, longKey, badValue]) {
      expect(toolResult(res).isError).toBe(true)
      expect(res.text).not.toContain(MARKER)
      expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(1024 + 64)
    }
    expect(toolResult(longQuery).content[0]!.text).toBe(
      'Invalid arguments for tool knowledge.search: /query fails maxLength 2000',
    )
  })

  it('admits arguments 32 containers deep to the schema check and refuses 33 with ERR_JSON_TOO_DEEP', async () => {
    const s = await RawSession.open(server.url('/mcp'), ALICE)
    const atLimit = toolResult(await s.call('knowledge.search', nested(31))).content[0]!.text
    const past = toolResult(await s.call('knowledge.search', nested(32))).content[0]!.text
    expect(atLimit).toBe(
      'Invalid arguments for tool knowledge.search: /pad fails unevaluatedProperties false',
    )
    expect(past).toContain('exceeds maxDepth 32 (ERR_JSON_TOO_DEEP)')
  })

  it('admits 10,000 argument nodes to the schema check and refuses 10,001 with ERR_JSON_TOO_MANY_NODES', async () => {
    const s = await RawSession.open(server.url('/mcp'), ALICE)
    // object 1 + 4 keys + 3 scalars + array 1 = 9 nodes before the padding elements
    const args = (n: number) => ({ ...searchArgs, pad: new Array(n - 9).fill(0) })
    const atLimit = toolResult(await s.call('knowledge.search', args(10_000))).content[0]!.text
    const past = toolResult(await s.call('knowledge.search', args(10_001))).content[0]!.text
    expect(atLimit).toBe(
      'Invalid arguments for tool knowledge.search: /pad fails unevaluatedProperties false',
    )
    expect(past).toContain('exceeds maxNodes 10000 (ERR_JSON_TOO_MANY_NODES)')
  })
})

describe('TOOL_TABLE and schemas/mcp/', () => {
  it('registers exactly the tools that have a published schema, and every schema names a registered tool', async () => {
    // With validation lifted, tools/list is the SDK's own listing of what is registered.
    const s = await RawSession.open(lifted.url('/mcp'), ALICE)
    const listed = JSON.parse((await s.post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).text)
    const registered = (listed.result.tools as { name: string }[]).map((t) => t.name).sort()
    const published = readdirSync(SCHEMAS)
      .filter((f) => f.endsWith('.schema.json') && f !== 'tool-context.schema.json')
      .map((f) => f.slice(0, -'.schema.json'.length))
      .sort()
    expect(registered).toEqual(published)
  })

  it('lists every tool with its published schema as it is in schemas/mcp/, bundled', async () => {
    // With validation lifted, tools/list is the SDK's own listing of what was registered: the
    // tool table hands the SDK the published schema itself, so there is no second schema to
    // drift from it.
    const registry = loadSchemaRegistry(SCHEMAS)
    const s = await RawSession.open(lifted.url('/mcp'), ALICE)
    const listed = JSON.parse((await s.post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).text)
    const tools = listed.result.tools as { name: string; inputSchema: unknown }[]
    expect(tools.length).toBe(registry.tools.length)
    for (const tool of tools) expect(tool.inputSchema).toEqual(registry.bundled(tool.name))
  })
})
