// Test helper: the Streamable HTTP path composed from the exported steps in mcpHttpHandler's
// order, with named steps left out: the "control removed" side of the 2026-07-28 tests. The
// production side is mcpHttpHandler itself, never this.
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  createMcpHttpAdmission,
  type HandlesHttpRequest,
  type McpHttpCall,
  type McpHttpOptions,
} from '../../src/index.js'

/** A step of the 2026-07-28 path that a test may leave out. */
export type ModernStep = 'version' | 'method' | 'head' | 'first-byte' | 'agreement'

/** The path without `skip`, in front of `target`, its steps those of the control `options` build. */
export function stepsWithout(
  skip: readonly ModernStep[],
  target: HandlesHttpRequest,
  options: McpHttpOptions,
): (req: IncomingMessage, res: ServerResponse, call?: McpHttpCall) => Promise<void> {
  const mcp = createMcpHttpAdmission(options)
  const without = new Set(skip)
  return async (req, res, call = {}) => {
    if (!without.has('version') && !mcp.guardProtocolVersion(req, res)) return
    const head = mcp.readMcpHead(req)
    if (!without.has('method') && !mcp.guardModernHttpMethod(res, head)) return
    const principal = call.principal
    const release = without.has('head') ? () => {} : mcp.guardMcpHead(res, head, { principal })
    if (release === undefined) return
    try {
      if (head.httpMethod !== 'POST') {
        return await mcp.handleMcpRequest(target, req, res, undefined)
      }
      if (!without.has('first-byte') && !(await mcp.guardModernFirstByte(req, res, head))) return
      const body = await mcp.admitMcpBody(req, res, { principal })
      if (!body.ok) return
      if (!without.has('agreement') && !mcp.guardHeaderAgreement(req, res, head, body.value)) {
        return
      }
      await mcp.handleMcpRequest(target, req, res, body.value)
    } finally {
      release()
    }
  }
}

/**
 * A server that trusts whatever reaches it (a custom server or an upstream behind a gateway):
 * it records each request (HTTP method and parsed body) and answers an empty result.
 */
export function recordingTarget() {
  const reached: { method: string; body: unknown }[] = []
  const target: HandlesHttpRequest = {
    handleRequest: async (req, res, body) => {
      reached.push({ method: req.method ?? '', body })
      const id = (body as { id?: unknown } | undefined)?.id ?? null
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }))
    },
  }
  return { reached, target }
}
