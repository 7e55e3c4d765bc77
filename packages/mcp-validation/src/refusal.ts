import type { AdmissionCode } from '@tollgate/json-budget'
import { boundedName } from './bounded-text.js'

/** Most bytes of a refusal: the serialized `result` (or `error`) member of the response. */
export const MAX_REFUSAL_BYTES = 1024

/**
 * The one answer to a `tools/call` naming a tool without a published schema, whether or not
 * the server registered it: JSON-RPC error `-32602` (invalid params), as the MCP spec answers
 * an unknown tool. It names no tool, so a registered-but-unpublished tool and a tool that
 * exists nowhere are indistinguishable, byte for byte.
 */
export const UNKNOWN_TOOL_ERROR: Readonly<{ code: -32602; message: 'Unknown tool' }> =
  Object.freeze({ code: -32602, message: 'Unknown tool' })

/**
 * The answer to a request that reuses the id of a request still in flight on the same
 * connection: JSON-RPC error `-32600` (invalid request; JSON-RPC 2.0 requires ids unique among
 * a client's outstanding requests). Answered by the decorator, so the request in flight and
 * its pending bookkeeping are untouched.
 */
export const REUSED_ID_ERROR: Readonly<{ code: -32600; message: 'Request id already in use' }> =
  Object.freeze({ code: -32600, message: 'Request id already in use' })

/** Why a call's arguments were refused, as data (all strings already bounded). */
export type ArgumentsRefusal =
  | {
      /** The arguments passed a structural bound before any validator ran. */
      readonly kind: 'bounds'
      readonly code: AdmissionCode
      /** The option passed (`maxDepth`, `maxNodes`, `maxBytes`); `undefined` for non-JSON. */
      readonly option: string | undefined
      readonly limit: number | undefined
      /** Bounded JSON Pointer where the bound was passed. */
      readonly pointer: string
    }
  | {
      /** The published schema refused the arguments. */
      readonly kind: 'schema'
      /** The failing keyword (`unevaluatedProperties`, `maxLength`, `pattern`, ...). */
      readonly keyword: string
      /** The schema's limit for that keyword as bounded JSON, or `undefined` when it has none. */
      readonly limit: string | undefined
      /** Bounded JSON Pointer to the failing key (for key keywords, the key itself). */
      readonly pointer: string
    }

/** A `tools/call` result, the shape a handler's own refusal has in the SDK. */
export interface ToolErrorResult {
  readonly content: readonly [{ readonly type: 'text'; readonly text: string }]
  readonly isError: true
  readonly [key: string]: unknown
}

/**
 * Renders an arguments refusal as the tool result a handler refusal would be:
 * `{ content: [{ type: 'text', text }], isError: true }`. The text names the tool, the JSON
 * Pointer and the keyword with the schema's limit (or the bound passed), and never a value;
 * every fragment has a byte cap, so the result is at most {@link MAX_REFUSAL_BYTES} whatever
 * the input.
 */
export function renderArgumentsRefusal(tool: string, refusal: ArgumentsRefusal): ToolErrorResult {
  const where = refusal.pointer === '' ? '(root)' : refusal.pointer
  let detail: string
  if (refusal.kind === 'bounds') {
    const limit = refusal.limit === undefined ? '' : ` ${refusal.limit}`
    detail =
      refusal.option === undefined
        ? `${where} is not plain JSON (${refusal.code})`
        : `${where} exceeds ${refusal.option}${limit} (${refusal.code})`
  } else {
    const limit = refusal.limit === undefined ? '' : ` ${refusal.limit}`
    detail = `${where} fails ${boundedName(refusal.keyword)}${limit}`
  }
  const text = `Invalid arguments for tool ${boundedName(tool)}: ${detail}`
  return { content: [{ type: 'text', text }], isError: true }
}
