// Test helper: the Streamable HTTP path composed from the exported steps in mcpHttpHandler's
// order, with named steps left out: the "control removed" side of the 2026-07-28 tests. The
// production side is mcpHttpHandler itself, never this.
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  admitMcpBody,
  guardHeaderAgreement,
  guardMcpHead,
  guardModernFirstByte,
  guardModernHttpMethod,
  guardProtocolVersion,
  type HandlesHttpRequest,
  handleMcpRequest,
  type McpHttpCall,
  type McpHttpOptions,
  type McpProtocolEras,
  type McpRouteHead,
  mcpProtocolEras,
  mcpRouteHead,
  readMcpHead,
  resolveMcpHttpOptions,
} from '../../src/index.js'

/** A step of the 2026-07-28 path that a test may leave out. */
export type ModernStep = 'version' | 'method' | 'head' | 'first-byte' | 'agreement'

/** The path without `skip`, in front of `target`. */
export function stepsWithout(
  skip: readonly ModernStep[],
  target: HandlesHttpRequest,
  options: McpHttpOptions,
  route: McpRouteHead = mcpRouteHead(),
  eras: McpProtocolEras = mcpProtocolEras(),
): (req: IncomingMessage, res: ServerResponse, call?: McpHttpCall) => Promise<void> {
  const resolved = resolveMcpHttpOptions(options)
  const without = new Set(skip)
  return async (req, res, call = {}) => {
    if (!without.has('version') && !guardProtocolVersion(req, res, resolved, eras)) return
    const head = readMcpHead(req, eras)
    if (!without.has('method') && !guardModernHttpMethod(res, head)) return
    const principal = call.principal
    const release = without.has('head') ? () => {} : guardMcpHead(res, head, route, principal)
    if (release === undefined) return
    try {
      if (head.httpMethod !== 'POST') {
        return await handleMcpRequest(target, req, res, undefined, resolved)
      }
      if (
        !without.has('first-byte') &&
        !(await guardModernFirstByte(req, res, head, resolved.admission.idleTimeoutMs))
      )
        return
      const body = await admitMcpBody(req, res, resolved, { principal })
      if (!body.ok) return
      if (
        !without.has('agreement') &&
        !guardHeaderAgreement(req, res, head, body.value, eras, route)
      ) {
        return
      }
      await handleMcpRequest(target, req, res, body.value, resolved)
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
