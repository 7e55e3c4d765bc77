// One MCP server instance of the fixture, made per request by the SDK's `createMcpHandler`
// (both eras). Every instance shares the process's requestState key, so a state minted on one
// request verifies on the next.
import { randomBytes } from 'node:crypto'
import {
  createRequestStateCodec,
  type McpRequestContext,
  McpServer,
} from '@modelcontextprotocol/server'
import { registerClientRequestTools } from './client-requests.js'
import { registerInputRequiredTools } from './input-required.js'
import { registerPrompts, registerResources } from './prompts-resources.js'
import { type FixtureNotifier, registerContentTools } from './tools.js'

/** Makes fixture server instances; one factory per HTTP handler. */
export type FixtureFactory = (ctx: McpRequestContext) => McpServer

/**
 * A factory of fixture servers: every tool, prompt and resource the conformance suite's server
 * scenarios call, with the capabilities they need (tools, prompts and resources with list
 * changes, resource subscriptions, logging, completions). `notifier` receives the list-change
 * announcements of the trigger tools.
 */
export function fixtureServerFactory(notifier: FixtureNotifier): FixtureFactory {
  const codec = createRequestStateCodec<{ round: number }>({ key: randomBytes(32) })
  return (ctx) => {
    const server = new McpServer(
      { name: 'tollgate-conformance-fixture', version: '0.0.0' },
      {
        capabilities: {
          tools: { listChanged: true },
          prompts: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          logging: {},
          completions: {},
        },
        requestState: { verify: codec.verify },
      },
    )
    registerContentTools(server, notifier, ctx.era)
    registerClientRequestTools(server)
    registerInputRequiredTools(server, codec)
    registerPrompts(server)
    registerResources(server)
    return server
  }
}
