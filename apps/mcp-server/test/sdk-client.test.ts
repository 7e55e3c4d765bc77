// A real client works: the SDK's own Client over Streamable HTTP and over stdio lists the tools
// and calls them against the built server.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ALICE, type LiveServer, MAIN, startServer, writeConfig } from './helpers/server.js'

let server: LiveServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server.stop()
})

const ALL_TOOLS = [
  'admin',
  'continuation.fetch',
  'knowledge',
  'knowledge.get',
  'knowledge.search',
  'knowledge.status',
  'project.export',
  'project.list',
  'system.capabilities',
]

async function exercise(client: Client): Promise<void> {
  const { tools } = await client.listTools()
  expect(tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS)
  const projects = await client.callTool({ name: 'project.list', arguments: {} })
  const text = (projects.content as { type: string; text: string }[])[0]!.text
  expect(JSON.parse(text).projects.map((p: { id: string }) => p.id)).toEqual([
    'atlas',
    'borealis',
    'cygnus',
  ])
  const search = await client.callTool({
    name: 'knowledge.search',
    arguments: { projectId: 'atlas', query: 'continuation', limit: 5 },
  })
  expect(search.isError).toBeFalsy()
}

describe('Client (@modelcontextprotocol/sdk)', () => {
  it('lists and calls tools over Streamable HTTP', async () => {
    const client = new Client({ name: 'sdk-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(server.url('/mcp')), {
      requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
    })
    await client.connect(transport)
    try {
      await exercise(client)
    } finally {
      await client.close()
    }
  })

  it('lists and calls tools over stdio', async () => {
    const client = new Client({ name: 'sdk-test', version: '1.0.0' })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, '--stdio', '--config', writeConfig()],
      stderr: 'ignore',
    })
    await client.connect(transport)
    try {
      await exercise(client)
    } finally {
      await client.close()
    }
  })
})
