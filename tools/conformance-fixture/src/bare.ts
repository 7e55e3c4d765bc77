// The fixture served as an SDK 2.4 user serves it with nothing of tollgate: `createMcpHandler`
// (2026-07-28, with the stateless 2025 fallback) behind the SDK's own localhost Host/Origin
// guards, as its documentation shows for a loopback server.
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from '@modelcontextprotocol/node'
import { createMcpHandler } from '@modelcontextprotocol/server'
import { fixtureServerFactory } from './fixture-server.js'
import type { FixtureNotifier } from './tools.js'

/** A `node:http` request listener: what a server answers on its MCP route. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>

/** The bare fixture: the SDK's handler and its localhost guards, nothing else. */
export function bareFixtureHandler(): RouteHandler {
  const notifier: FixtureNotifier = {
    toolsChanged: () => handler.notify.toolsChanged(),
    promptsChanged: () => handler.notify.promptsChanged(),
  }
  const handler = createMcpHandler(fixtureServerFactory(notifier))
  const serve = toNodeHandler(handler)
  const host = localhostHostValidation()
  const origin = localhostOriginValidation()
  return async (req, res) => {
    if (!host(req, res) || !origin(req, res)) return
    await serve(req, res)
  }
}
