// The lingering close past its byte bound, through a real socket: a client that sent more than
// 1 MiB of body before reading (its writes were in flight when the server answered early) and
// then stops sending reads the answer. Reading stops at the byte bound; the socket is destroyed
// at the time bound or when the client closes, not at once (a reset at once made the client's
// kernel drop the answer it had not read yet).
import type { Socket } from 'node:net'
import { connect } from 'node:net'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import { refuseUnread } from '../src/index.js'
import { LINGER_LIMITS } from '../src/respond.js'
import { until } from './helpers/wait.js'

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

describe('refuseUnread past lingerBytes', () => {
  it('delivers the answer to a client that stops sending once past 1 MiB, and reads no more than the bound', async () => {
    const served: Socket[] = []
    running = await listen((_req, res) => {
      refuseUnread(res, 401, '{"error":"unauthorized"}', { 'content-type': 'application/json' })
    })
    running.server.on('connection', (s: Socket) => served.push(s))
    const client = connect(running.port, '127.0.0.1')
    client.on('error', () => {})
    // Not reading yet: the answer waits in the client's kernel, as it does for a client busy
    // writing its body.
    client.pause()
    let data = ''
    client.on('data', (d: Buffer) => {
      data += d.toString('latin1')
    })
    const closed = new Promise<void>((resolve) => client.on('close', () => resolve()))
    const body = 4 * 1024 * 1024
    client.write(
      `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body}\r\n\r\n`,
    )
    // The whole body handed to the kernel at once, then nothing more: the client stops.
    client.write(Buffer.alloc(body, 0x20))
    await until(() => (served[0]?.bytesRead ?? 0) > LINGER_LIMITS.lingerBytes)
    // The server passed its byte bound: it reads no further.
    const readAtBound = served[0]!.bytesRead
    client.resume()
    await until(() => data.includes('unauthorized') || client.destroyed)
    expect(data).toMatch(/^HTTP\/1\.1 401/)
    expect(data).toContain('{"error":"unauthorized"}')
    client.destroy()
    await closed
    // At most what was in flight when reading stopped: a few chunks past the bound.
    expect(served[0]!.bytesRead - readAtBound).toBeLessThan(1024 * 1024)
    expect(served[0]!.bytesRead).toBeLessThan(LINGER_LIMITS.lingerBytes + 2 * 1024 * 1024)
  })
})
