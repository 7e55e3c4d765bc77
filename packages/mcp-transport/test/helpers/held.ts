// Test helper: a request whose head is sent at once and whose body is held back until the test
// says so (or never), over a raw TCP socket, watching for an answer that may come before it.
import { connect } from 'node:net'
import { parseResponse, type RawResponse } from '@tollgate/test-kit/http-client'

export interface HeldRequest {
  /** Resolves with the response once complete, or `undefined` if the server closed first. */
  readonly response: Promise<RawResponse | undefined>
  /** Writes the held body (and ends the request). */
  sendBody(): void
  /** Closes the socket. */
  destroy(): void
}

/** Sends `method path` with `headers` (a `Content-Length` of `body` added) and holds the body. */
export function heldRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array = new Uint8Array(0),
): HeldRequest {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  let data = Buffer.alloc(0)
  const response = new Promise<RawResponse | undefined>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk])
      const parsed = parseResponse(data)
      if (parsed !== undefined) resolve(parsed)
    })
    socket.on('close', () => resolve(parseResponse(data)))
  })
  const all: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    'content-length': String(body.byteLength),
    ...headers,
  }
  socket.write(
    `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`,
  )
  return {
    response,
    sendBody: () => {
      if (!socket.destroyed) socket.write(body)
    },
    destroy: () => socket.destroy(),
  }
}
