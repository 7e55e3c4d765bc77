import type { CallToolResult } from '@modelcontextprotocol/server'

/** The app's own refusal codes for state-dependent refusals that stay in handlers. */
export const APP_REFUSALS = Object.freeze({
  ERR_PROJECT_NOT_FOUND: 'No such project.',
  ERR_ITEM_NOT_FOUND: 'No such item in this project.',
  ERR_PARAMS_REQUIRED: 'This action needs params it was not given.',
  ERR_CONTINUATION_STORE_UNAVAILABLE: 'The result could not be stored; retry later.',
  ERR_CONTINUATION_TOO_LARGE: 'The result is too large to hold as a continuation.',
  ERR_CONTINUATION_STORE_FULL: 'The continuation store is full; retry later.',
} as const)

/** One of {@link APP_REFUSALS}. */
export type AppRefusalCode = keyof typeof APP_REFUSALS

/** A successful result: the value as compact JSON text. */
export function jsonText(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] }
}

/**
 * A handler refusal: an `isError` tool result whose text is `{"error":{"code","message"}}` with
 * a fixed message per code. It never contains anything the caller sent, so two refusals with
 * the same code are byte-identical.
 */
export function refusal(
  code: AppRefusalCode | { readonly code: string; readonly message: string },
): CallToolResult {
  const error =
    typeof code === 'string'
      ? { code, message: APP_REFUSALS[code] }
      : { code: code.code, message: code.message }
  return { content: [{ type: 'text', text: JSON.stringify({ error }) }], isError: true }
}
