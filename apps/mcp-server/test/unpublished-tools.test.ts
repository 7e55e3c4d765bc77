// The start-up schema check of the reference server, where a server connects: a tool registered
// without a published schema refuses the connection with ERR_TOOL_UNPUBLISHED naming it (the
// stdio server's start, an HTTP session's opening), before anything is served. The app's own
// builders are used (buildMcpServer, messageControls, the published schemas of schemas/mcp/);
// the control lifts validation and the same server connects. The test-only probe is exempted
// only when its --unsafe flag registered it.
import { fileURLToPath } from 'node:url'
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node'
import { createContinuations, sealedHandles } from '@tollgate/continuation'
import { loadSchemaRegistry } from '@tollgate/mcp-validation'
import { describe, expect, it } from 'vitest'
import { buildMcpServer, publishTools, UNPUBLISHED_PROBE_TOOL } from '../src/build-server.js'
import { validateConfig } from '../src/config.js'
import { messageControls } from '../src/controls.js'
import { CredentialRegistry } from '../src/credentials.js'
import { KnowledgeStore } from '../src/store/knowledge-store.js'
import { SEED_DATA } from '../src/store/seed.js'
import { ROUTES } from '../src/surfaces.js'
import type { ServerContext } from '../src/tools/context.js'

const SCHEMAS = fileURLToPath(new URL('../../../schemas/mcp/', import.meta.url))
const registry = loadSchemaRegistry(SCHEMAS)
const published = publishTools(registry)
const route = ROUTES[0]!

function context(registerUnpublishedProbe: boolean): ServerContext {
  return {
    store: new KnowledgeStore(SEED_DATA),
    credentials: new CredentialRegistry(
      validateConfig({ credentials: [{ id: 'alice', token: 'a'.repeat(32), capabilities: [] }] }),
    ),
    continuations: createContinuations({}),
    continuationWrites: () => 0,
    audit: () => {},
    registerUnpublishedProbe,
    anonymousRoutes: new Set(),
    handles: sealedHandles({ keys: [{ id: 'test', secret: new Uint8Array(32).fill(7) }] }),
  }
}

function server(validated: boolean, probe = false) {
  const controls = messageControls({
    registry: validated ? registry : undefined,
    maxResultBytes: 64 * 1024 * 1024,
  })
  return buildMcpServer(context(probe), { route, credentialId: 'alice' }, published, controls)
}

const transport = () => new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined })

describe('buildMcpServer (start-up schema check at connect)', () => {
  it('refuses to connect a server registering a tool without a published schema, naming it', async () => {
    const mcp = server(true)
    let ran = false
    mcp.registerTool('extra.unpublished', { description: 'no schema' }, async () => {
      ran = true
      return { content: [] }
    })
    await expect(mcp.connect(transport())).rejects.toMatchObject({
      code: 'ERR_TOOL_UNPUBLISHED',
      tools: ['extra.unpublished'],
    })
    expect(mcp.isConnected()).toBe(false)
    expect(ran).toBe(false)
  })

  it('connects the same server with validation lifted (the control)', async () => {
    const mcp = server(false)
    mcp.registerTool('extra.unpublished', { description: 'no schema' }, async () => ({
      content: [],
    }))
    await expect(mcp.connect(transport())).resolves.toBeUndefined()
    expect(mcp.isConnected()).toBe(true)
    await mcp.close()
  })

  it('connects a server whose every tool is published', async () => {
    const mcp = server(true)
    await expect(mcp.connect(transport())).resolves.toBeUndefined()
    await mcp.close()
  })

  it('exempts the probe only when its --unsafe flag registered it, and no other tool', async () => {
    const probe = server(true, true)
    await expect(probe.connect(transport())).resolves.toBeUndefined()
    await probe.close()
    const both = server(true, true)
    both.registerTool('extra.unpublished', { description: 'no schema' }, async () => ({
      content: [],
    }))
    await expect(both.connect(transport())).rejects.toMatchObject({
      tools: ['extra.unpublished'],
    })
    // Registered by hand without the flag, the probe's name is refused like any other.
    const sneaked = server(true, false)
    sneaked.registerTool(UNPUBLISHED_PROBE_TOOL, { description: 'no schema' }, async () => ({
      content: [],
    }))
    await expect(sneaked.connect(transport())).rejects.toMatchObject({
      tools: [UNPUBLISHED_PROBE_TOOL],
    })
  })
})
