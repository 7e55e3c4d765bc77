import type { ServerResponse } from 'node:http'
import { type RenderRefusal, refuseUnread, sendRefusal } from '@tollgate/http-admission'
import {
  type AdmissionError,
  type RefusalFacts,
  type RefusalHook,
  type RefusalWhere,
  refusalEvent,
  reportRefusal,
} from '@tollgate/json-budget'
import type { McpHttpPolicy } from './http-options.js'
import { JSON_RPC_ERRORS, jsonRpcErrorFor } from './json-rpc.js'
import type { RequestIdLike } from './mcp-types.js'
import type { JsonRpcErrorObject } from './transport-decorator.js'

const STRUCTURE = new Set([
  'ERR_JSON_INVALID_UTF8',
  'ERR_JSON_SYNTAX',
  'ERR_JSON_TOO_DEEP',
  'ERR_JSON_TOO_MANY_NODES',
  'ERR_JSON_DUPLICATE_KEY',
  'ERR_JSON_PROTO_KEY',
  'ERR_JSON_STRING_TOO_LONG',
  'ERR_JSON_NUMBER_TOO_LONG',
  'ERR_JSON_BOM',
])

/**
 * Renders a refusal as a JSON-RPC error body (`id: null`): `-32700 Parse error` for a body
 * refused for UTF-8 or structure, `-32600 Invalid Request` for a well-formed JSON text that is
 * not an object or array (JSON-RPC 2.0 §5: neither a request nor a batch), `-32000` with the
 * bounded message otherwise; `data` holds the
 * stable code and the limit. Never the caller's bytes.
 */
export const renderJsonRpcRefusal: RenderRefusal = (error) => ({
  contentType: 'application/json',
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: jsonRpcErrorFor(
      STRUCTURE.has(error.code)
        ? JSON_RPC_ERRORS.parseError
        : error.code === 'ERR_JSON_NOT_OBJECT_OR_ARRAY'
          ? JSON_RPC_ERRORS.invalidRequest
          : JSON_RPC_ERRORS.serverError,
      error,
    ),
  }),
})

/** The `control` of each step's refusal events (see `RefusalEvent`): a closed set. */
export type McpHttpStep =
  | 'mcp-host-origin'
  | 'mcp-protocol-version'
  | 'mcp-method'
  | 'mcp-head'
  | 'mcp-first-byte'
  | 'mcp-body'
  | 'mcp-header-agreement'

/**
 * Reports one refusal of `step` to `hook`, if set: the code, the status answered, the limit and
 * the option of `facts` (an `AdmissionError`, or the fixed facts of a JSON-RPC refusal), and
 * the route's name and the caller's reportable key of `where`; never the caller's bytes. A hook
 * that throws or rejects is caught. Internal to the HTTP steps.
 */
export function reportStepRefusal(
  hook: RefusalHook | undefined,
  facts: RefusalFacts,
  step: McpHttpStep,
  where?: RefusalWhere,
): void {
  if (hook !== undefined) reportRefusal(hook, refusalEvent(facts, step, where))
}

/**
 * The `ERR_*` code a JSON-RPC refusal of the HTTP steps stands for: its `data.code` when it has
 * one, else `fallback` (the `-32601` and `-32602` answers carry none). Internal to the steps.
 */
export function codeOfRpcError(error: JsonRpcErrorObject, fallback: `ERR_${string}`) {
  const code = (error.data as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && code.startsWith('ERR_') ? (code as `ERR_${string}`) : fallback
}

/**
 * Answers an admission refusal (an `AdmissionError` from a step) as a JSON-RPC error with the
 * status of its code (`Retry-After` on a 503) and closes the connection without reading the
 * rest of the body.
 */
export function refuseMcpRequest(
  res: ServerResponse,
  error: AdmissionError,
  policy: McpHttpPolicy,
): void {
  sendRefusal(res, error, {
    render: renderJsonRpcRefusal,
    retryAfterSeconds: policy.body.policy.retryAfterSeconds,
  })
}

/**
 * Answers from the head alone — an unknown route (404), a missing credential (401), an unknown
 * session (404), a session limit (503 / 429) — with a JSON-RPC error body (`id: null`) and
 * closes the connection unread (`refuseUnread` of `@tollgate/http-admission`), so an endless
 * body behind the head is never drained. `error` is built by the server, never from caller
 * bytes; `headers` (e.g. `WWW-Authenticate`, `Retry-After`) are added. A refusal made after the
 * body was parsed passes the request's `id` (see {@link jsonRpcRequestIdOf}), which JSON-RPC
 * requires the error to echo; default `null` (no body read, no id known).
 */
export function refuseJsonRpcUnread(
  res: ServerResponse,
  status: number,
  error: JsonRpcErrorObject,
  headers: Readonly<Record<string, string>> = {},
  id: RequestIdLike | null = null,
): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id, error })
  refuseUnread(res, status, body, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
    ...headers,
  })
}

/**
 * The id a refusal of a parsed body echoes: the `id` of a single JSON-RPC request (an object
 * with a string `method` and a string or number `id`), else `null` (a notification, a batch, a
 * response, anything else). The id is the request's own token, which JSON-RPC requires the
 * answer to carry; nothing else of the body is ever put in a refusal.
 */
export function jsonRpcRequestIdOf(body: unknown): RequestIdLike | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null
  const { method, id } = body as { method?: unknown; id?: unknown }
  if (typeof method !== 'string') return null
  return typeof id === 'string' || typeof id === 'number' ? id : null
}
