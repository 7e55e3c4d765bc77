// Pre-body admission on the 2026-07-28 path. The revision mirrors the method and the tool,
// prompt or resource name into headers, so a route can refuse what it does not serve from the
// head alone: an unknown method, a tool, prompt or resource off its surface, a declared length
// over the tool's byte cap, a caller over its quota. None of these reads a body byte; the
// composed handler closes the connection unread. A 2025 request names its prompt or resource in
// the body only: the same surfaces judge it once parsed (`checkNames`).
import { defineOptions, functionOption, type OptionsOf, option } from '@tollgate/json-budget'
import type { McpHead } from './mcp-head.js'
import { type McpParamHeader, paramHeadersOf } from './mcp-param-headers.js'
import {
  METHOD_NOT_FOUND_ERROR,
  METHOD_NOT_SERVED_CODE,
  QUOTA_CODE,
  QUOTA_ERROR,
  UNKNOWN_NAME_ERROR,
  UNKNOWN_TOOL_CODE,
} from './modern-refusal.js'
import { checkPromptNames, checkResourceEntries, routeNames } from './route-names.js'
import type { JsonRpcErrorObject } from './transport-decorator.js'

/** A tool on the route's surface. */
export interface McpRouteTool {
  /**
   * The tool's published input schema (what `tools/list` returns). Its `x-mcp-header`
   * properties are the `Mcp-Param-{Name}` headers checked against the body. Default: none.
   */
  readonly inputSchema?: unknown
  /**
   * Largest body of a 2026-07-28 `tools/call` naming this tool (in `Mcp-Name`), in bytes: a
   * larger declared `Content-Length` is refused 413 before a body byte is read, and a body
   * without one (chunked) is cut with the same 413 once it passes the cap, the rest unread.
   * Default: the route's `maxBodyBytes`.
   */
  readonly maxBodyBytes?: number
}

/** What a quota says for one request: go on (and release when done), or refuse. */
export type McpQuotaGrant =
  | { readonly ok: true; readonly release?: () => void }
  | { readonly ok: false; readonly retryAfterSeconds?: number }

/**
 * The host's quota: asked once per request, from the head, with the caller's principal (the
 * per-call argument the host passes, e.g. `handle(req, res, { principal })`; `undefined` for a
 * caller without one). A grant's `release` is called once the request is answered.
 */
export interface McpQuota {
  acquire(principal: string | undefined, head: McpHead): McpQuotaGrant
}

/** An audit event: a refusal from the head, or a header that disagrees with the body. */
export type McpHeadAuditEvent =
  | {
      readonly type: 'method-not-served' | 'unknown-name' | 'over-tool-cap' | 'over-quota'
      readonly era: 'modern' | 'legacy'
    }
  | {
      readonly type: 'header-mismatch'
      readonly header: string
      readonly kind: 'missing' | 'mismatch' | 'encoding'
    }

function positiveInteger(value: unknown, name: string): void {
  if (!Number.isSafeInteger(value) || (value as number) < 1) {
    throw new TypeError(`${name} must be a positive integer`)
  }
}

/**
 * The options of {@link mcpRouteHead}, declared once (the table in docs/mcp-transport.md is
 * `ROUTE_HEAD_OPTIONS.markdown()`). Each tool's `x-mcp-header` declarations are checked when
 * the control is built.
 */
export const ROUTE_HEAD_OPTIONS = defineOptions('mcpRouteHead', {
  name: option<string | undefined>({
    default: undefined,
    check: (value, name) => {
      if (typeof value !== 'string' || !/^[^\u0000-\u001f\u007f]{1,200}$/.test(value)) {
        throw new TypeError(`${name} must be a route name of 1–200 printable characters`)
      }
    },
    shown: 'none',
    doc: "the route's name (`'mcp'`, `'/mcp/read'`: the host's, never the request path), reported as `route` in the refusal events of the steps that judge a request on this route",
  }),
  tools: option<Readonly<Record<string, McpRouteTool>> | undefined>({
    default: undefined,
    check: (value, name) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new TypeError(`${name} must be an object of tools by name`)
      }
    },
    shown: 'any name (the server decides)',
    doc: 'the tools the route serves, by name (`{ inputSchema?, maxBodyBytes? }` each): the surface the `Mcp-Name` of a 2026-07-28 `tools/call` must be on (else 400 `-32602` `Unknown tool`, before the body); a 2025 `tools/call` names its tool in the body only, where `@tollgate/mcp-validation` judges it',
  }),
  prompts: option<readonly string[] | undefined>({
    default: undefined,
    check: checkPromptNames,
    shown: 'any prompt (the server decides)',
    doc: 'the prompts the route serves, by name: a `prompts/get` of another (its 2026-07-28 `Mcp-Name` before the body, a 2025 body once parsed) is 400 `-32602` `Prompt not found`',
  }),
  resources: option<readonly string[] | undefined>({
    default: undefined,
    check: checkResourceEntries,
    shown: 'any resource (the server decides)',
    doc: "the resources the route serves: exact URIs, or templates whose `{var}` stands for one or more characters up to the template's next character (never `/`, `?`, `#`, `%2F`, `%5C`, `%00` or a dot segment); a `resources/read` of another URI (`Mcp-Name` before the body, a 2025 body once parsed) is 400 `-32602` `Resource not found`",
  }),
  methods: option<readonly string[] | undefined>({
    default: undefined,
    check: (value, name) => {
      if (!(Array.isArray(value) && value.every((m) => typeof m === 'string'))) {
        throw new TypeError(`${name} must be an array of strings`)
      }
    },
    shown: 'any method (the server decides)',
    doc: 'the JSON-RPC methods the route serves; a 2026-07-28 `Mcp-Method` outside them is 404 `-32601` before the body (a 2025 request carries no `Mcp-Method`: the server answers it)',
  }),
  maxBodyBytes: option<number | undefined>({
    default: undefined,
    check: positiveInteger,
    shown: "none (the body control's cap alone)",
    doc: 'largest body of a 2026-07-28 `tools/call` whose tool sets no cap of its own, in bytes (declared, or counted as it arrives): 413',
  }),
  quota: option<McpQuota | undefined>({
    default: undefined,
    check: (value, name) => {
      if (typeof (value as Partial<McpQuota> | null)?.acquire !== 'function') {
        throw new TypeError(`${name} must be an object with acquire(principal, head)`)
      }
    },
    shown: 'none',
    doc: "the host's quota, asked for every request of either era with the call's principal: 429",
  }),
  audit: option<((event: McpHeadAuditEvent) => void) | undefined>({
    default: undefined,
    check: functionOption,
    shown: 'none',
    doc: 'receives an event per refusal this control causes (fixed fields only); a throwing sink is ignored',
  }),
})

/** Options of {@link mcpRouteHead} (see {@link ROUTE_HEAD_OPTIONS}); every field optional. */
export type McpRouteHeadOptions = OptionsOf<typeof ROUTE_HEAD_OPTIONS.rows>

/** The answer to a refused head: status, JSON-RPC error, extra headers. */
export interface McpHeadRefusal {
  readonly ok: false
  /** The code the refusal event reports (`ERR_MCP_UNKNOWN_TOOL`, `ERR_BODY_TOO_LARGE`, …). */
  readonly code: `ERR_${string}`
  readonly status: number
  readonly error: JsonRpcErrorObject
  readonly headers: Readonly<Record<string, string>>
}

/**
 * What {@link McpRouteHead.admit} decides. An admitted head carries the byte cap its tool sets
 * (`maxBodyBytes`, when the head names a capped tool): the body step counts the body against it
 * as it arrives, so a body with no declared length is held to the same cap.
 */
export type McpHeadDecision =
  | {
      readonly ok: true
      readonly release: () => void
      readonly maxBodyBytes?: number | undefined
    }
  | McpHeadRefusal

/** The route's head-admission control (frozen). */
export interface McpRouteHead {
  /** The route's name (the `name` option), reported as `route` in refusal events. */
  readonly name: string | undefined
  /**
   * Judges a request from its head: on the 2026-07-28 path the method, the tool, prompt or
   * resource name and the declared length; on both eras the quota. Call `release` once the request is answered, and
   * hold the body to the decision's `maxBodyBytes` when set.
   */
  admit(head: McpHead, call: { readonly principal: string | undefined }): McpHeadDecision
  /**
   * Judges a parsed body (one message, or each of a 2025 batch) that came with `head` against
   * the route's `prompts` and `resources`: a `prompts/get` or `resources/read` naming what the
   * route does not serve is refused (400 `-32602`, the one answer whatever the name);
   * `undefined` to go on. The head step judged the same names from `Mcp-Name` on the 2026-07-28
   * path; this holds the 2025 one (which has no such header) to them too.
   */
  checkNames(head: McpHead, body: unknown): McpHeadRefusal | undefined
  /** The `x-mcp-header` declarations of a tool on the surface (empty when none). */
  paramHeadersOf(tool: string): readonly McpParamHeader[]
  /** Reports an event to the `audit` option, if any; a throwing sink is ignored. */
  report(event: McpHeadAuditEvent): void
}

const NONE: readonly McpParamHeader[] = Object.freeze([])
const noop = (): void => {}

/**
 * Builds the head-admission control of one route, once, at start-up.
 * @throws TypeError on an unknown option, a byte cap that is not a positive integer, a
 *   `methods` that is not an array of strings, a `prompts` or `resources` entry that is not a
 *   name or URI (template) of 1–2,048 characters, a `quota` without `acquire`, an `audit` that
 *   is not a function, or an `x-mcp-header` declaration the spec does not allow.
 */
export function mcpRouteHead(options?: McpRouteHeadOptions): McpRouteHead {
  const o = ROUTE_HEAD_OPTIONS.resolve(options)
  const methods = o.methods
  const served = methods === undefined ? undefined : new Set(methods)
  const tools = new Map<string, { cap: number | undefined; params: readonly McpParamHeader[] }>()
  for (const [name, tool] of Object.entries(o.tools ?? {})) {
    if (tool?.maxBodyBytes !== undefined) {
      positiveInteger(tool.maxBodyBytes, `tools.${name}.maxBodyBytes`)
    }
    tools.set(name, {
      cap: tool.maxBodyBytes ?? o.maxBodyBytes,
      params: paramHeadersOf(name, tool.inputSchema),
    })
  }
  const surface = o.tools === undefined ? undefined : tools
  const names = routeNames(o.prompts, o.resources)
  const quota = o.quota
  const audit = o.audit
  const report = (event: McpHeadAuditEvent): void => {
    try {
      audit?.(event)
    } catch {
      // An audit sink's failure never changes an answer.
    }
  }
  const refuse = (
    event: McpHeadAuditEvent,
    code: `ERR_${string}`,
    status: number,
    error: JsonRpcErrorObject,
    headers: Readonly<Record<string, string>> = {},
  ): McpHeadRefusal => {
    report(event)
    return { ok: false, code, status, error, headers }
  }

  return Object.freeze({
    name: o.name,
    admit(head: McpHead, call: { readonly principal: string | undefined }): McpHeadDecision {
      const era = head.era
      let maxBodyBytes: number | undefined
      if (era === 'modern' && head.method !== undefined) {
        if (served !== undefined && !served.has(head.method)) {
          return refuse(
            { type: 'method-not-served', era },
            METHOD_NOT_SERVED_CODE,
            404,
            METHOD_NOT_FOUND_ERROR,
          )
        }
        const unknown = typeof head.name === 'string' && names?.judgeHead(head.method, head.name)
        if (unknown) return refuse({ type: 'unknown-name', era }, unknown.code, 400, unknown.error)
        if (head.method === 'tools/call' && typeof head.name === 'string') {
          const tool = surface?.get(head.name)
          if (surface !== undefined && tool === undefined) {
            return refuse({ type: 'unknown-name', era }, UNKNOWN_TOOL_CODE, 400, UNKNOWN_NAME_ERROR)
          }
          const cap = tool?.cap ?? (surface === undefined ? o.maxBodyBytes : undefined)
          if (cap !== undefined && head.declaredBytes !== undefined && head.declaredBytes > cap) {
            return refuse(
              { type: 'over-tool-cap', era },
              'ERR_BODY_TOO_LARGE',
              413,
              toolCapError(cap),
            )
          }
          maxBodyBytes = cap
        }
      }
      if (quota === undefined) {
        return maxBodyBytes === undefined ? GRANTED : { ok: true, release: noop, maxBodyBytes }
      }
      const grant = quota.acquire(call.principal, head)
      if (grant.ok) return { ok: true, release: once(grant.release ?? noop), maxBodyBytes }
      const retry = grant.retryAfterSeconds
      return refuse(
        { type: 'over-quota', era },
        QUOTA_CODE,
        429,
        QUOTA_ERROR,
        Number.isSafeInteger(retry) && (retry as number) >= 0
          ? { 'Retry-After': String(retry) }
          : {},
      )
    },
    checkNames(head: McpHead, body: unknown): McpHeadRefusal | undefined {
      const unknown = names?.judgeBody(body)
      if (unknown === undefined) return undefined
      return refuse({ type: 'unknown-name', era: head.era }, unknown.code, 400, unknown.error)
    },
    paramHeadersOf(tool: string): readonly McpParamHeader[] {
      return tools.get(tool)?.params ?? NONE
    },
    report,
  })
}

const GRANTED: McpHeadDecision = Object.freeze({ ok: true, release: noop })

function once(release: () => void): () => void {
  let done = false
  return () => {
    if (done) return
    done = true
    release()
  }
}

function toolCapError(limit: number): JsonRpcErrorObject {
  return {
    code: -32000,
    message: 'Payload Too Large: body exceeds the byte limit of this tool',
    data: { code: 'ERR_BODY_TOO_LARGE', limit },
  }
}
