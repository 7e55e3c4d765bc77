import type { JsonRpcMessage } from './mcp-types.js'

// The envelope both MCP SDK lines accept on stdio (`JSONRPCMessageSchema` in
// `@modelcontextprotocol/sdk` 1.32 `types.js` and in `@modelcontextprotocol/core` 2.x: the same
// four strict objects), checked here without loading either SDK, so the bounded transport runs
// unchanged under a v1 or a v2 server and never imports one line's internals for the other.

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params'])
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params'])
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result'])
const ERROR_KEYS = new Set(['jsonrpc', 'id', 'error'])
const RELATED_TASK_KEY = 'io.modelcontextprotocol/related-task'

type Obj = Record<string, unknown>

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** zod 4's `z.number().int()` admits safe integers only. */
function isInt(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value)
}

function isId(value: unknown): boolean {
  return typeof value === 'string' || isInt(value)
}

function onlyKeys(value: Obj, allowed: Set<string>): boolean {
  for (const key of Object.keys(value)) if (!allowed.has(key)) return false
  return true
}

/** `_meta` as the SDKs' `RequestMetaSchema` reads it: open, with two typed keys. */
function isMeta(value: unknown): boolean {
  if (!isObject(value)) return false
  if ('progressToken' in value && !isId(value.progressToken)) return false
  if (RELATED_TASK_KEY in value) {
    const task = value[RELATED_TASK_KEY]
    if (!isObject(task) || typeof task.taskId !== 'string') return false
  }
  return true
}

/** `params` / `result`: an open object whose `_meta`, when present, is well-typed. */
function isOpenObject(value: unknown): boolean {
  return isObject(value) && (!('_meta' in value) || isMeta(value._meta))
}

function isErrorObject(value: unknown): boolean {
  return isObject(value) && isInt(value.code) && typeof value.message === 'string'
}

/**
 * True when `value` is one JSON-RPC 2.0 message as the MCP SDKs (1.32 and 2.x) accept it on
 * stdio: a request (`id`, `method`, optional `params`), a notification (`method`, optional
 * `params`), a result response (`id`, `result`) or an error response (optional `id`, `error`
 * with integer `code` and string `message`). Top-level keys beyond those are refused, as the
 * SDKs' strict schemas refuse them; a batch (an array) is not a message. Ids and integer codes
 * are safe integers or strings. The value is not copied or changed.
 */
export function isJsonRpcMessage(value: unknown): value is JsonRpcMessage {
  if (!isObject(value) || value.jsonrpc !== '2.0') return false
  if ('method' in value) {
    if (typeof value.method !== 'string') return false
    if ('params' in value && !isOpenObject(value.params)) return false
    if ('id' in value) return isId(value.id) && onlyKeys(value, REQUEST_KEYS)
    return onlyKeys(value, NOTIFICATION_KEYS)
  }
  if ('result' in value) {
    return isId(value.id) && isOpenObject(value.result) && onlyKeys(value, RESULT_KEYS)
  }
  if ('error' in value) {
    if ('id' in value && !isId(value.id)) return false
    return isErrorObject(value.error) && onlyKeys(value, ERROR_KEYS)
  }
  return false
}
