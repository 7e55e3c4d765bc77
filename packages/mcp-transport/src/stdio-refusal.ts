import {
  type AdmissionCode,
  type AdmissionError,
  type RefusalEvent,
  refusalEvent,
} from '@tollgate/json-budget'
import { JSON_RPC_ERRORS } from './json-rpc.js'

/** The code for a stdio line that is valid JSON but not a JSON-RPC 2.0 message. */
export const INVALID_MESSAGE_CODE = 'ERR_JSONRPC_INVALID_MESSAGE'

/**
 * The words the SDK's own stdio `ReadBuffer` throws when a line passes its buffer cap
 * (`ReadBuffer exceeded maximum size of N bytes`). An over-cap refusal's message contains them
 * so that code matching on the SDK's message keeps working after the swap.
 */
export const SDK_OVERFLOW_MESSAGE = 'ReadBuffer exceeded maximum size'

/**
 * What `onerror` receives once for every stdio line the bounded transport refuses (it has
 * already written the small JSON-RPC answer). Carries the tollgate `code`, the JSON-RPC
 * `jsonRpcCode` it was answered with, and the `limit` / byte `offset` where they apply; the
 * message is built from those alone and never holds the caller's bytes.
 */
export class StdioRefusalError extends Error {
  /** `ERR_LINE_TOO_LARGE`, a preflight code (`ERR_JSON_…`) or `ERR_JSONRPC_INVALID_MESSAGE`. */
  readonly code: string
  /** The JSON-RPC error code of the answer written: -32000, -32700 or -32600. */
  readonly jsonRpcCode: number
  /** The limit that was passed, when a limit was. */
  readonly limit: number | undefined
  /** The byte offset in the line where the preflight refused, when known. */
  readonly offset: number | undefined
  /**
   * For the closing report of a repeat window: how many more lines were refused with this
   * `code` within `refusalWindowMs` after the one reported first; else `undefined`.
   */
  readonly repeated: number | undefined

  private constructor(
    message: string,
    code: string,
    jsonRpcCode: number,
    limit?: number,
    offset?: number,
    repeated?: number,
  ) {
    super(message)
    this.name = 'StdioRefusalError'
    this.code = code
    this.jsonRpcCode = jsonRpcCode
    this.limit = limit
    this.offset = offset
    this.repeated = repeated
  }

  /**
   * The closing report of a repeat window: `count` more lines refused as `first` was, within
   * `windowMs`. Carries `first`'s code, JSON-RPC code and limit, no offset.
   */
  static repeats(first: StdioRefusalError, count: number, windowMs: number): StdioRefusalError {
    return new StdioRefusalError(
      `stdio lines refused: ${count} more with ${first.code} within ${windowMs} ms`,
      first.code,
      first.jsonRpcCode,
      first.limit,
      undefined,
      count,
    )
  }

  /** A line past the byte cap: the input has ended, or (`skipped`) the line was skipped. */
  static overflow(error: AdmissionError, skipped = false): StdioRefusalError {
    const limit = error.limit ?? 0
    return new StdioRefusalError(
      `${SDK_OVERFLOW_MESSAGE} of ${limit} bytes: a stdio line passed ${error.option ?? 'maxLineBytes'} (${error.code}); ${skipped ? 'line skipped' : 'input ended'}`,
      error.code,
      JSON_RPC_ERRORS.serverError,
      limit,
    )
  }

  /** A complete line refused by the preflight (UTF-8, syntax, depth, nodes, a policy). */
  static refused(error: AdmissionError): StdioRefusalError {
    return new StdioRefusalError(
      `stdio line refused: ${error.message} (${error.code})`,
      error.code,
      JSON_RPC_ERRORS.parseError,
      error.limit,
      error.offset,
    )
  }

  /** Valid JSON that is not a JSON-RPC 2.0 message. */
  static invalidMessage(): StdioRefusalError {
    return new StdioRefusalError(
      `stdio line is not a JSON-RPC 2.0 message (${INVALID_MESSAGE_CODE})`,
      INVALID_MESSAGE_CODE,
      JSON_RPC_ERRORS.invalidRequest,
    )
  }
}

/**
 * The `RefusalEvent` of a refused stdio line: its code and limit, `control` `'mcp-stdio'`, no
 * `status` (stdio answers with a JSON-RPC error only), no `principal` (a stdio server's one
 * caller is the process that spawned it, which the transport cannot name) and no `route`.
 * Never the line's bytes.
 */
export function stdioRefusalEvent(error: StdioRefusalError): RefusalEvent {
  return refusalEvent({ code: error.code as AdmissionCode, limit: error.limit }, 'mcp-stdio')
}
