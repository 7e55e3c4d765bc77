import { once } from 'node:events'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { admitNodeRequest, bodyAdmission, sendRefusal } from '@tollgate/http-admission'
import fc from 'fast-check'
import { anyDocument, anySplits, chunksOf } from '../arbitraries.js'
import { ddmin } from '../ddmin.js'
import { countJsonText, strictParse } from '../strict-json.js'
import { decodeChunked, encodeChunked, type FuzzTarget, minimizeChunked } from '../target.js'

/** A document sent as a POST body, in chunks, with or without a `Content-Length`. */
export interface HttpInput {
  readonly bytes: Uint8Array
  readonly splits: readonly number[]
  readonly declareLength: boolean
  /** Admit with `strict: false` (any top-level value); the default is strict. */
  readonly loose?: boolean
}

// Small enough that generated documents cross it, so 413 is exercised beside 422 and 200.
const MAX_BYTES = 2_048
const OPTIONS = bodyAdmission({
  maxBytes: MAX_BYTES,
  timeoutMs: 5_000,
  idleTimeoutMs: 5_000,
})
const LOOSE = bodyAdmission({
  maxBytes: MAX_BYTES,
  timeoutMs: 5_000,
  idleTimeoutMs: 5_000,
  strict: false,
})

let server: Server | undefined
/** Refusals the client saw as a connection reset rather than a status (see judgeHttp). */
export let resets = 0
let port = 0

async function startServer(): Promise<void> {
  server = createServer(async (req, res) => {
    const result = await admitNodeRequest(req, req.url === '/loose' ? LOOSE : OPTIONS)
    if (!result.ok) {
      sendRefusal(res, result.error)
      return
    }
    res.setHeader('Content-Type', 'application/json')
    res.end(JSON.stringify(result.value === undefined ? { empty: true } : { value: result.value }))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  port = (server.address() as AddressInfo).port
}

interface Answer {
  readonly status: number
  readonly body: string
}

function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1))
}

/** Sends the body through a real socket, a chunk per write with a pause between writes. */
async function send(input: HttpInput): Promise<Answer> {
  const chunks = chunksOf(input.bytes, input.splits)
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json' }
  if (input.declareLength) headers['Content-Length'] = input.bytes.length
  const path = input.loose === true ? '/loose' : '/'
  const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers, agent: false })
  req.setNoDelay(true)
  const answered = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString() }),
      )
      res.on('error', reject)
    })
    // After an early refusal the server closes the socket while we may still be writing.
    req.on('error', (error) => setTimeout(() => reject(error), 50))
  })
  let done = false
  void answered.then(
    () => (done = true),
    () => (done = true),
  )
  for (const chunk of chunks) {
    if (done || req.destroyed) break
    if (chunk.length > 0) req.write(chunk)
    await pause()
  }
  if (!done && !req.destroyed) req.end()
  return answered
}

/**
 * Judges one POST: a body over the cap is 413; otherwise the answer agrees with strict
 * `JSON.parse` (BOM kept, as the default policy refuses it) and the default structure limits:
 * 200 with the same value, or 422; under the default `strict`, a top-level value that is not an
 * object or array is 422 `ERR_JSON_NOT_OBJECT_OR_ARRAY`.
 */
export async function judgeHttp(input: HttpInput): Promise<string | undefined> {
  const label = `${input.declareLength ? 'content-length' : 'chunked'} ${input.bytes.length} bytes`
  const reference = strictParse(input.bytes, true)
  const within =
    reference.ok &&
    (() => {
      const c = countJsonText(reference.text)
      return c.depth <= OPTIONS.policy.maxDepth && c.nodes <= OPTIONS.policy.maxNodes
    })()
  const admissible =
    input.bytes.length === 0 || (input.bytes.length <= MAX_BYTES && reference.ok && within)
  let answer: Answer
  try {
    answer = await send(input)
  } catch (error) {
    // The server closes the connection after a refusal without reading the rest of the body
    // (by design); a client still writing may then see a reset instead of the status. That
    // is a refusal all the same; only a body the reference admits must get an answer.
    resets++
    return admissible
      ? `${label}: admissible body, no answer: ${(error as Error).message}`
      : undefined
  }
  const topLevelContainer =
    reference.ok && typeof reference.value === 'object' && reference.value !== null
  const strictRefuses = reference.ok && input.loose !== true && !topLevelContainer
  if (input.bytes.length > MAX_BYTES) {
    // Over the cap: refused. A valid document can only be refused for its size (or, under
    // strict, for a top-level scalar, which its first byte shows); a broken one may be refused
    // for what its first MAX_BYTES bytes hold, before the cap is reached.
    if (reference.ok && within && !strictRefuses) {
      return answer.status === 413
        ? undefined
        : `${label}: valid but over the cap, answered ${answer.status}`
    }
    return answer.status === 413 || answer.status === 422
      ? undefined
      : `${label}: over the cap, answered ${answer.status}`
  }
  if (input.bytes.length === 0) {
    return answer.status === 200 && answer.body === '{"empty":true}'
      ? undefined
      : `${label}: empty body answered ${answer.status}`
  }
  if (reference.ok && within && strictRefuses) {
    return answer.status === 422 && answer.body.includes('"ERR_JSON_NOT_OBJECT_OR_ARRAY"')
      ? undefined
      : `${label}: strict, a top-level scalar answered ${answer.status}`
  }
  if (reference.ok && within) {
    if (answer.status !== 200)
      return `${label}: JSON.parse accepts, answered ${answer.status} ${answer.body.slice(0, 200)}`
    const expected = JSON.stringify({ value: reference.value })
    if (answer.body !== expected) return `${label}: admitted value differs from JSON.parse's`
    return undefined
  }
  if (answer.status !== 422) return `${label}: refused by the reference, answered ${answer.status}`
  return undefined
}

export const httpTarget: FuzzTarget<HttpInput> = {
  name: 'http-admission-socket',
  description: 'admitNodeRequest on a real http.Server, documents sent in random chunk sizes',
  shrink: false,
  minimizeBudget: 300,
  arbitrary: fc.record({
    bytes: anyDocument,
    splits: anySplits,
    declareLength: fc.boolean(),
    loose: fc.boolean(),
  }),
  async unavailable() {
    return typeof admitNodeRequest === 'function'
      ? undefined
      : '@tollgate/http-admission does not export admitNodeRequest'
  },
  setup: startServer,
  async teardown() {
    if (server === undefined) return
    server.closeAllConnections()
    server.close()
    await once(server, 'close')
    server = undefined
  },
  check: judgeHttp,
  async minimize(input, fails) {
    const reduced = await minimizeChunked(
      input,
      (candidate) =>
        fails({ ...candidate, declareLength: input.declareLength, loose: input.loose === true }),
      ddmin,
      300,
    )
    return { ...reduced, declareLength: input.declareLength, loose: input.loose === true }
  },
  encode(input) {
    return {
      ...(encodeChunked(input) as object),
      declareLength: input.declareLength,
      loose: input.loose === true,
    }
  },
  decode(stored) {
    return {
      ...decodeChunked(stored),
      declareLength: (stored as { declareLength?: unknown }).declareLength === true,
      loose: (stored as { loose?: unknown }).loose === true,
    }
  },
}
