// Reading a Streamable HTTP upstream's answer: bounded, preflighted, checked to be the
// response to the gateway's request.
import { preflight } from '@tollgate/lexical-preflight'
import { type GatewayCode, gatewayRpcError } from './gateway-errors.js'
import type { RpcReply } from './rpc-session.js'

function fail(code: GatewayCode, limit?: number): RpcReply {
  return { ok: false, error: gatewayRpcError(code, limit) }
}

/** An HTTP upstream's answer to request `id` as a reply (`ERR_UPSTREAM_INVALID` when malformed). */
export function toReply(answer: unknown, id: number): RpcReply {
  const m = answer as { id?: unknown; result?: unknown; error?: unknown } | null
  if (m === null || typeof m !== 'object' || m.id !== id) return fail('ERR_UPSTREAM_INVALID')
  if (m.error !== undefined) {
    const e = m.error as { code?: unknown; message?: unknown; data?: unknown }
    if (!Number.isSafeInteger(e?.code) || typeof e.message !== 'string')
      return fail('ERR_UPSTREAM_INVALID')
    return {
      ok: false,
      error:
        e.data === undefined
          ? { code: e.code as number, message: e.message }
          : { code: e.code as number, message: e.message, data: e.data },
    }
  }
  if (m.result === null || typeof m.result !== 'object') return fail('ERR_UPSTREAM_INVALID')
  return { ok: true, result: m.result }
}

/** Reads a JSON body under `maxBytes`, preflighted (UTF-8, grammar, nodes, depth) before parsing. */
export async function readJson(res: Response, maxBytes: number): Promise<unknown> {
  const bytes = await readCapped(res, maxBytes)
  preflight(bytes, { maxBytes })
  return JSON.parse(new TextDecoder().decode(bytes))
}

/** The body's bytes, cut off (and the request aborted) past `maxBytes`. */
export async function readCapped(res: Response, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let total = 0
  if (res.body === null) return new Uint8Array()
  const reader = res.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel()
      throw Object.assign(new Error('upstream answer too large'), {
        code: 'ERR_UPSTREAM_LINE_TOO_LARGE',
      })
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}
