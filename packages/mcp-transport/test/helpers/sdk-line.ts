// The MCP SDK line the wire tests run on, one adapter per line: TOLLGATE_SDK_LINE=2 (set by the
// `sdk2` vitest project) loads @modelcontextprotocol/server 2.x and its Node, Express and client
// packages; anything else loads @modelcontextprotocol/sdk 1.32. The test bodies import the SDK
// only from here, so one body runs on both lines. The exports are typed as 1.32's: the two lines'
// classes are used here only through the surface they share.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { InMemoryTransport as V1InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { createMcpExpressApp as v1CreateMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js'
import type { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { StreamableHTTPServerTransport as V1StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'

interface SdkLine {
  /** `1` or `2`. */
  readonly line: '1' | '2'
  /** The npm package and version, for test titles and reports. */
  readonly name: string
  readonly McpServer: typeof V1McpServer
  readonly Client: typeof V1Client
  readonly InMemoryTransport: typeof V1InMemoryTransport
  readonly StreamableHTTPServerTransport: typeof V1StreamableHTTPServerTransport
  readonly createMcpExpressApp: typeof v1CreateMcpExpressApp
}

/** The version in the package.json of the package that `specifier` resolves into. */
function versionOf(name: string, specifier: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(specifier))
  for (;;) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string }
      if (pkg.name === name) return pkg.version
    }
    const up = dirname(dir)
    if (up === dir) throw new Error(`no package.json for ${name}`)
    dir = up
  }
}

async function loadV1(): Promise<SdkLine> {
  const [mcp, client, memory, http, express] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/inMemory.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/server/express.js'),
  ])
  const name = '@modelcontextprotocol/sdk'
  return {
    line: '1',
    name: `${name} ${versionOf(name, `${name}/server/mcp.js`)}`,
    McpServer: mcp.McpServer,
    Client: client.Client,
    InMemoryTransport: memory.InMemoryTransport,
    StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
    createMcpExpressApp: express.createMcpExpressApp,
  }
}

async function loadV2(): Promise<SdkLine> {
  const [server, client, node, express] = await Promise.all([
    import('@modelcontextprotocol/server'),
    import('@modelcontextprotocol/client'),
    import('@modelcontextprotocol/node'),
    import('@modelcontextprotocol/express'),
  ])
  const name = '@modelcontextprotocol/server'
  return {
    line: '2',
    name: `${name} ${versionOf(name, name)}`,
    McpServer: server.McpServer as unknown as typeof V1McpServer,
    Client: client.Client as unknown as typeof V1Client,
    InMemoryTransport: server.InMemoryTransport as unknown as typeof V1InMemoryTransport,
    StreamableHTTPServerTransport:
      node.NodeStreamableHTTPServerTransport as unknown as typeof V1StreamableHTTPServerTransport,
    createMcpExpressApp: express.createMcpExpressApp as unknown as typeof v1CreateMcpExpressApp,
  }
}

/** The SDK line of this test run. */
export const SDK: SdkLine = process.env.TOLLGATE_SDK_LINE === '2' ? await loadV2() : await loadV1()

export const {
  McpServer,
  Client,
  InMemoryTransport,
  StreamableHTTPServerTransport,
  createMcpExpressApp,
} = SDK
