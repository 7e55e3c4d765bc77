// Test helper: the package's bad-input table as raw HTTP/1.1 requests, sent over a real socket
// to 127.0.0.1 by a client that writes exactly these bytes. Each framework test runs every row
// against the framework's own server with its adapter (refused, the handler not run) and
// without it (the rows the framework itself does not stop reach the handler).
import { chunk, head, RawClient, type RawResponse } from '@tollgate/test-kit/http-client'
import { createInFlightBudget } from '../../src/budget.js'
import { type BodyAdmission, bodyAdmission } from '../../src/index.js'

/** The cap the table is written against, in bytes. */
export const CAP = 1024

/** The read deadline of the table's control (ms); the slow sender outlasts it. */
export const DEADLINE_MS = 1_000

/** The control every framework test holds: the table's cap and deadline, its own budget. */
export function tableControl(): BodyAdmission {
  return bodyAdmission({
    maxBytes: CAP,
    timeoutMs: DEADLINE_MS,
    idleTimeoutMs: DEADLINE_MS,
    budget: createInFlightBudget(16 * 1024 * 1024),
  })
}

const json = (bytes: number) => {
  const text = '{"a":""}'
  return Buffer.from(`{"a":"${'x'.repeat(bytes - text.length)}"}`)
}

/** One bad input: how it is sent, and the refusal it must get. */
export interface BadInput {
  readonly name: string
  readonly status: number
  readonly code: string
  /** Sends the input; `slow` sends the endless body slowly until answered. */
  send(port: number, path?: string): Promise<RawResponse | undefined>
}

function lines(path: string, contentType: string, framing: string): string[] {
  return [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', `Content-Type: ${contentType}`, framing]
}

async function exchange(
  port: number,
  bytes: (Buffer | string)[],
): Promise<RawResponse | undefined> {
  const client = new RawClient(port)
  try {
    for (const piece of bytes) if (!(await client.write(piece))) break
    return await client.response().catch(() => undefined)
  } finally {
    client.destroy()
  }
}

/** A body sent whole with its `Content-Length`. */
function declared(body: Buffer, contentType = 'application/json') {
  return (port: number, path = '/') =>
    exchange(port, [head(lines(path, contentType, `Content-Length: ${body.length}`)), body])
}

/** Writes one byte of a chunked body every 50 ms until `stopAfter` bytes, then maybe ends it. */
async function trickle(
  port: number,
  path: string,
  stopAfter: number,
  finish: boolean,
): Promise<RawResponse | undefined> {
  const client = new RawClient(port)
  try {
    await client.write(head(lines(path, 'application/json', 'Transfer-Encoding: chunked')))
    const body = Buffer.from(`{"a":"${' '.repeat(stopAfter)}`)
    let sent = 0
    while (sent < stopAfter && !client.hasResponse() && !client.isClosed) {
      if (!(await client.write(chunk(body.subarray(sent, sent + 1))))) break
      sent++
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    if (finish && !client.hasResponse()) {
      await client.write(chunk(body.subarray(sent)))
      await client.write(chunk('"}'))
      await client.write('0\r\n\r\n')
    }
    return await client.response().catch(() => undefined)
  } finally {
    client.destroy()
  }
}

/** The bad-input table of the package README, each row with its refusal. */
export const BAD_INPUTS: readonly BadInput[] = [
  {
    name: 'a declared body over the cap',
    status: 413,
    code: 'ERR_BODY_TOO_LARGE',
    send: declared(json(CAP * 2)),
  },
  {
    name: 'an undeclared (chunked) body over the cap',
    status: 413,
    code: 'ERR_BODY_TOO_LARGE',
    send: (port, path = '/') =>
      exchange(port, [
        head(lines(path, 'application/json', 'Transfer-Encoding: chunked')),
        chunk(json(CAP * 2)),
        '0\r\n\r\n',
      ]),
  },
  {
    name: 'bytes that are not UTF-8',
    status: 422,
    code: 'ERR_JSON_INVALID_UTF8',
    send: declared(Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}')])),
  },
  {
    name: 'depth 65',
    status: 422,
    code: 'ERR_JSON_TOO_DEEP',
    send: declared(Buffer.from(`${'['.repeat(65)}${']'.repeat(65)}`)),
  },
  {
    name: 'a repeated key',
    status: 422,
    code: 'ERR_JSON_DUPLICATE_KEY',
    send: declared(Buffer.from('{"role":"user","role":"admin"}')),
  },
  {
    name: 'a media type other than JSON',
    status: 415,
    code: 'ERR_BODY_MEDIA_TYPE',
    send: declared(Buffer.from('{"a":1}'), 'text/plain'),
  },
  {
    name: 'an endless slow body',
    status: 408,
    code: 'ERR_BODY_TIMEOUT',
    // Far more bytes than the deadline lets through at one byte per 50 ms.
    send: (port, path = '/') => trickle(port, path, 400, false),
  },
]

/**
 * The slow row as an attacker that outlasts the deadline (about 1.5 s of trickling) and then
 * finishes the body: without the adapter, the body is taken whatever its pace.
 */
export function slowButFinished(port: number, path = '/'): Promise<RawResponse | undefined> {
  return trickle(port, path, 30, true)
}

/** The code of a refusal body: problem+json, Fastify's error shape, or a JSON-RPC error. */
export function codeOf(response: RawResponse | undefined): unknown {
  if (response === undefined) return undefined
  try {
    return (JSON.parse(response.body) as { code?: unknown }).code
  } catch {
    return undefined
  }
}
