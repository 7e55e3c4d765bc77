// A small HTTP/1.1 client over one keep-alive socket for the end-to-end family benchmarks: the
// request is written as prepared bytes (head and body in one buffer) and the answer is read by
// its Content-Length or its chunked terminator, so the client adds as little as it can to both
// legs of a ratio. Not a general client: one request at a time, no redirects, no trailers.
import { connect } from 'node:net'

const CRLF2 = Buffer.from('\r\n\r\n')
const LAST_CHUNK = Buffer.from('\r\n0\r\n\r\n')

/** The bytes of one POST: `headers` (an object) with Host and Content-Length added, then `body`. */
export function requestBytes(port, path, headers, body) {
  const head = [
    `POST ${path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    `content-length: ${body.length}`,
    '',
    '',
  ].join('\r\n')
  return Buffer.concat([Buffer.from(head, 'latin1'), body])
}

/**
 * Opens one keep-alive connection to 127.0.0.1:`port`. `send(bytes)` writes a prepared request
 * and resolves `{ status, body, ns }` (ns: from the write to the last byte of the answer).
 */
export async function rawClient(port) {
  const socket = connect(port, '127.0.0.1')
  socket.setNoDelay(true)
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  let pending = null
  let chunks = []
  let size = 0
  const finish = (buf, headEnd, total) => {
    const head = buf.subarray(0, headEnd).toString('latin1')
    const status = Number(head.slice(9, 12))
    const body = buf.subarray(headEnd + 4, total)
    const rest = buf.subarray(total)
    chunks = rest.length > 0 ? [rest] : []
    size = rest.length
    const done = pending
    pending = null
    done.resolve({ status, body, ns: Number(process.hrtime.bigint() - done.started) })
  }
  socket.on('data', (chunk) => {
    chunks.push(chunk)
    size += chunk.length
    if (pending === null) return
    const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)
    chunks = [buf]
    const headEnd = buf.indexOf(CRLF2)
    if (headEnd < 0) return
    const head = buf.subarray(0, headEnd).toString('latin1')
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
    if (length !== null) {
      const total = headEnd + 4 + Number(length[1])
      if (buf.length >= total) finish(buf, headEnd, total)
      return
    }
    if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      const end = buf.indexOf(LAST_CHUNK, headEnd)
      if (end >= 0) finish(buf, headEnd, end + LAST_CHUNK.length)
    }
  })
  socket.on('error', (error) => pending?.reject(error))
  socket.on('close', () => pending?.reject(new Error('connection closed before the answer')))
  return {
    send(bytes) {
      return new Promise((resolve, reject) => {
        pending = { resolve, reject, started: process.hrtime.bigint() }
        socket.write(bytes)
      })
    },
    close() {
      socket.destroy()
    },
  }
}
