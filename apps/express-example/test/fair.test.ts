// The example's fair-admission rows through real sockets: early answers close the connection
// unread, idle sockets declaring 1 MiB hold nothing, and one address cannot take the budget.
import type { Server } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'
import {
  createInFlightBudget,
  defaultInFlightBudget,
  principalUsage,
} from '@tollgate/http-admission'
import { afterEach, describe, expect, it } from 'vitest'
import { type AppOptions, createApp } from '../src/app.js'

let server: Server | undefined
const sockets: Client[] = []
afterEach(async () => {
  for (const c of sockets.splice(0)) c.socket.destroy()
  await new Promise<void>((resolve) => {
    server?.closeAllConnections()
    server?.close(() => resolve()) ?? resolve()
  })
  server = undefined
})

async function start(options: AppOptions = {}): Promise<number> {
  const s = createApp(options).listen(0, '127.0.0.1')
  server = s
  await new Promise((resolve) => s.once('listening', resolve))
  return (s.address() as AddressInfo).port
}

/** A raw client bound to `from` (a loopback address), collecting what the server answers. */
class Client {
  readonly socket: Socket
  readonly closed: Promise<void>
  data = ''
  isClosed = false
  constructor(port: number, from = '127.0.0.1') {
    this.socket = connect({ port, host: '127.0.0.1', localAddress: from })
    sockets.push(this)
    this.socket.on('error', () => {})
    this.socket.on('data', (d: Buffer) => {
      this.data += d.toString('latin1')
    })
    this.closed = new Promise((resolve) =>
      this.socket.on('close', () => {
        this.isClosed = true
        resolve()
      }),
    )
  }
  write(bytes: string | Uint8Array): Promise<boolean> {
    if (this.isClosed || !this.socket.writable) return Promise.resolve(false)
    return new Promise((resolve) => this.socket.write(bytes, (error) => resolve(!error)))
  }
  /** The status and body of the first response, once complete. */
  async response(): Promise<{ status: number; body: string; headers: string }> {
    for (;;) {
      const end = this.data.indexOf('\r\n\r\n')
      if (end >= 0) {
        const headers = this.data.slice(0, end).toLowerCase()
        const length = Number(/content-length: (\d+)/.exec(headers)?.[1] ?? 0)
        if (this.data.length >= end + 4 + length) {
          const status = Number(this.data.slice(9, 12))
          return { status, headers, body: this.data.slice(end + 4, end + 4 + length) }
        }
      }
      if (this.isClosed) throw new Error(`closed without a full response (${this.data.length})`)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }
}

const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`
const frame = (b: Buffer) =>
  Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')])
const PIECE = frame(Buffer.alloc(64 * 1024, 0x20))

/** Streams an endless chunked body at `method path`; returns the answer and what was taken after it. */
async function endless(port: number, method: string, path: string) {
  const client = new Client(port)
  await client.write(
    head([`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Transfer-Encoding: chunked']),
  )
  const answered = client.response()
  let done = false
  answered.then(
    () => (done = true),
    () => (done = true),
  )
  while (!done && (await client.write(PIECE))) await new Promise((r) => setImmediate(r))
  const answer = await answered
  let after = 0
  while (after < 64 * 1024 * 1024 && (await client.write(PIECE))) after += PIECE.length
  await client.closed
  return { answer, after }
}

/** A small legitimate POST /notes from `from`. */
async function postNote(port: number, from: string) {
  const body = '{"title":"legit"}'
  const client = new Client(port, from)
  await client.write(
    head([
      'POST /notes HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      `Content-Length: ${body.length}`,
    ]) + body,
  )
  return client.response()
}

describe('early answers', () => {
  it('cuts an endless body sent to a route that takes none, and the client still gets its answer', async () => {
    const port = await start()
    for (const [method, path, status, error] of [
      ['GET', '/notes', 400, 'body_not_allowed'],
      ['POST', '/nowhere', 404, 'not_found'],
      ['DELETE', '/notes/1', 405, 'method_not_allowed'],
    ] as const) {
      const { answer, after } = await endless(port, method, path)
      expect(answer.status, path).toBe(status)
      expect(JSON.parse(answer.body), path).toEqual({ error })
      expect(answer.headers, path).toContain('connection: close')
      // Cut: far less than the 64 MiB the client offered after the answer.
      expect(after, path).toBeLessThan(16 * 1024 * 1024)
    }
  })
})

describe('idle sockets and shares', () => {
  it('serves a POST before a 5 s deadline while 256 idle sockets declaring 1 MiB are held', async () => {
    // 256 addresses, one idle socket each (so the per-address shares do not help): only the
    // bytes-held rule keeps the 256 MiB budget free.
    const budget = createInFlightBudget(defaultInFlightBudget.maxBytes)
    const port = await start({ budget })
    const idle: Client[] = []
    const addresses: string[] = []
    for (let i = 0; i < 256; i++) {
      addresses.push(`127.0.${1 + (i >> 7)}.${1 + (i & 127)}`)
      const client = new Client(port, addresses[i])
      await client.write(
        head([
          'POST /notes HTTP/1.1',
          'Host: 127.0.0.1',
          'Content-Type: application/json',
          `Content-Length: ${1024 * 1024}`,
        ]),
      )
      idle.push(client)
    }
    // Every one of them is being admitted (counted as a body of its address), holding nothing.
    const admitted = () => addresses.filter((a) => principalUsage(budget, a).bodies === 1).length
    while (admitted() < 256) await new Promise((r) => setTimeout(r, 5))
    expect(budget.inFlight).toBe(0)
    const deadline = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('not served within 5 s')), 5_000).unref(),
    )
    const served = await Promise.race([postNote(port, '127.0.9.9'), deadline])
    expect(served.status).toBe(201)
    expect(JSON.parse(served.body)).toMatchObject({ title: 'legit' })
    expect(idle.every((c) => !c.isClosed && c.data === '')).toBe(true)
  })

  /** A socket from 127.0.0.1 that sends half of a declared 1 MiB, so it holds 1 MiB. */
  async function hog(port: number) {
    const client = new Client(port)
    await client.write(
      head([
        'POST /notes HTTP/1.1',
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        `Content-Length: ${1024 * 1024}`,
      ]),
    )
    await client.write(`{"title":"${'a'.repeat(512 * 1024 - 10)}`)
    return client
  }

  const held = async (budget: { inFlight: number }, bytes: number) => {
    while (budget.inFlight < bytes) await new Promise((r) => setTimeout(r, 5))
  }

  it('refuses one address its second held body with 503 and Retry-After while another address is served', async () => {
    const budget = createInFlightBudget(4 * 1024 * 1024)
    const port = await start({ budget })
    await hog(port)
    await held(budget, 1024 * 1024)
    const refused = await (await hog(port)).response()
    expect(refused.status).toBe(503)
    expect(refused.headers).toContain('retry-after: 1')
    expect(JSON.parse(refused.body)).toMatchObject({
      code: 'ERR_ADMISSION_PRINCIPAL_BUSY',
      limit: 1024 * 1024,
    })
    const served = await postNote(port, '127.0.0.2')
    expect(served.status).toBe(201)
  })

  it('control: with the shares off, one address holding bodies makes every other POST answer 503', async () => {
    const budget = createInFlightBudget(4 * 1024 * 1024)
    const port = await start({ budget, principal: false })
    for (let i = 1; i <= 4; i++) {
      await hog(port)
      await held(budget, i * 1024 * 1024)
    }
    const starved = await postNote(port, '127.0.0.2')
    expect(starved.status).toBe(503)
    expect(JSON.parse(starved.body)).toMatchObject({ code: 'ERR_ADMISSION_BUSY' })
  })
})
