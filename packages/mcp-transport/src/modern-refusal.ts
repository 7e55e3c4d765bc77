// The JSON-RPC errors of the 2026-07-28 path, each fixed or built from server-side values only.
// The spec reserves -32020…-32099 and defines -32020 (HeaderMismatch) and -32022
// (UnsupportedProtocolVersion) there; tollgate's own codes stay in -32000…-32019 and travel in
// `data.code`, as on the 2025 path.
import type { JsonRpcErrorObject } from './transport-decorator.js'

/** JSON-RPC error codes the 2026-07-28 revision defines, as the spec numbers them. */
export const MCP_MODERN_ERRORS = Object.freeze({
  /** A method the server (here: the route) does not serve; HTTP 404. */
  methodNotFound: -32601,
  /** Invalid params; the spec's answer to an unknown tool. */
  invalidParams: -32602,
  /** Invalid request: here, a JSON-RPC batch (an array) on the 2026-07-28 path; HTTP 400. */
  invalidRequest: -32600,
  /** A mirrored header missing, malformed or disagreeing with the body; HTTP 400. */
  headerMismatch: -32020,
  /** A protocol version the route does not serve; HTTP 400, `data: { supported, requested }`. */
  unsupportedProtocolVersion: -32022,
})

/** `data.code` of a `-32020` answer. */
export const HEADER_MISMATCH_CODE = 'ERR_MCP_HEADER_MISMATCH'

/** `data.code` of a refusal for a caller over the quota the host supplied; HTTP 429. */
export const QUOTA_CODE = 'ERR_MCP_QUOTA'

/** `data.code` of a JSON-RPC batch refused on the 2026-07-28 path. */
export const BATCH_CODE = 'ERR_MCP_BATCH'

/**
 * The one answer to an `Mcp-Name` the route does not serve, whether the name exists on
 * another route or nowhere: JSON-RPC `-32602` `Unknown tool`, the bytes
 * `@tollgate/mcp-validation` answers an unknown tool with. It names no tool.
 */
export const UNKNOWN_NAME_ERROR: JsonRpcErrorObject = Object.freeze({
  code: MCP_MODERN_ERRORS.invalidParams,
  message: 'Unknown tool',
})

/**
 * The one answer to a prompt the route does not serve (`prompts/get`, from `Mcp-Name` before
 * the body on the 2026-07-28 path, from the body on the 2025 one), whether the prompt exists on
 * another route or nowhere: JSON-RPC `-32602` `Prompt not found`, the SDK's code and message
 * without the name the SDK quotes.
 */
export const UNKNOWN_PROMPT_ERROR: JsonRpcErrorObject = Object.freeze({
  code: MCP_MODERN_ERRORS.invalidParams,
  message: 'Prompt not found',
})

/**
 * The one answer to a resource URI the route does not serve (`resources/read`, as for
 * prompts): JSON-RPC `-32602` `Resource not found`, the code every revision answers a missing
 * resource with, and no `data.uri` (the SDK echoes the URI there; this never does).
 */
export const UNKNOWN_RESOURCE_ERROR: JsonRpcErrorObject = Object.freeze({
  code: MCP_MODERN_ERRORS.invalidParams,
  message: 'Resource not found',
})

/**
 * The code a refusal event reports for an `Mcp-Method` the route does not serve (answered
 * 404 `-32601`, which carries no code on the wire).
 */
export const METHOD_NOT_SERVED_CODE = 'ERR_MCP_METHOD_NOT_SERVED'

/**
 * The code a refusal event reports for an `Mcp-Name` off the route's surface (answered 400
 * `-32602` `Unknown tool`, which carries no code on the wire).
 */
export const UNKNOWN_TOOL_CODE = 'ERR_MCP_UNKNOWN_TOOL'

/** The code a refusal event reports for a prompt off the route's surface (400 `-32602`). */
export const UNKNOWN_PROMPT_CODE = 'ERR_MCP_UNKNOWN_PROMPT'

/** The code a refusal event reports for a resource off the route's surface (400 `-32602`). */
export const UNKNOWN_RESOURCE_CODE = 'ERR_MCP_UNKNOWN_RESOURCE'

/** The answer to a method the route does not serve (from `Mcp-Method`, before the body). */
export const METHOD_NOT_FOUND_ERROR: JsonRpcErrorObject = Object.freeze({
  code: MCP_MODERN_ERRORS.methodNotFound,
  message: 'Method not found',
})

/** The answer to a JSON-RPC batch on the 2026-07-28 path: one message per POST. */
export const MODERN_BATCH_ERROR: JsonRpcErrorObject = Object.freeze({
  code: MCP_MODERN_ERRORS.invalidRequest,
  message: 'Invalid Request: one JSON-RPC message per POST',
  data: Object.freeze({ code: BATCH_CODE }),
})

/** The answer to a caller the host's quota refuses (tollgate's own code, in -32000…-32019). */
export const QUOTA_ERROR: JsonRpcErrorObject = Object.freeze({
  code: -32000,
  message: 'Too Many Requests: quota exceeded',
  data: Object.freeze({ code: QUOTA_CODE }),
})

/** The kind of header/body disagreement a `-32020` reports (and its audit event names). */
export type HeaderMismatchKind = 'missing' | 'mismatch' | 'encoding'

/**
 * The `-32020` answer: `data` names the header (a fixed name, or `Mcp-Param-{Name}` from the
 * tool's published schema) and the kind, never a value the caller sent.
 */
export function headerMismatchError(header: string, kind: HeaderMismatchKind): JsonRpcErrorObject {
  return {
    code: MCP_MODERN_ERRORS.headerMismatch,
    message: 'Bad Request: a request header does not match the body',
    data: { code: HEADER_MISMATCH_CODE, header, kind },
  }
}

/**
 * The `-32022` answer: `data` is exactly `{ supported, requested }` as the spec requires;
 * `requested` is the sent version when it has a version's shape, else a fixed placeholder.
 */
export function unsupportedVersionError(
  supported: readonly string[],
  requested: string,
): JsonRpcErrorObject {
  return {
    code: MCP_MODERN_ERRORS.unsupportedProtocolVersion,
    message: 'Unsupported protocol version',
    data: { supported: [...supported], requested },
  }
}
