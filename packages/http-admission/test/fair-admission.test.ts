// Fair admission through real sockets: idle sockets declaring large lengths hold nothing, a
// body below the minimum data rate is refused, and one principal cannot take the budget.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { AdmissionError } from '@tollgate/json-budget'
import { head, RawClient } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_IN_FLIGHT_BYTES } from '../src/budget.js'
import { toHttpError } from '../src/http-error.js'
import {
  type AdmitResult,
  admitNodeRequest,
  type BodyAdmissionOptions,
  bodyAdmission,
  createInFlightBudget,
  sendRefusal,
} from '../src/index.js'
import { sleep, until } from './helpers/wait.js'

let running: Running | undefined
const clients: RawClient[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy()
  await running?.close()
  running = undefined
})

/** A server whose handler (the sentinel) runs only for admitted bodies. */
async function serve(
  options: BodyAdmissionOptions,
  principalOf?: (req: IncomingMessage) => string | undefined,
) {
  const body = bodyAdmission(options)
  const state = { handled: 0, started: 0, results: [] as AdmitResult[] }
  running = await listen(async (req: IncomingMessage, res: ServerResponse) => {
    state.started++
    const result = await admitNodeRequest(req, body, { principal: principalOf?.(req) })
    state.results.push(result)
    if (!result.ok) return sendRefusal(res, result.error)
    state.handled++
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ value: result.value ?? null }))
  })
  return { state, port: running.port }
}

/** Opens a POST, sends its head (declaring `length`) and `body`, and keeps the socket. */
async function open(port: number, length: number, body = '', extra: string[] = []) {
  const client = new RawClient(port)
  clients.push(client)
  await client.write(
    head([
      'POST / HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      `Content-Length: ${length}`,
      ...extra,
    ]),
  )
  if (body !== '') await client.write(body)
  return client
}

/** One complete small POST; resolves with its response. */
async function legit(port: number, extra: string[] = []) {
  const client = await open(port, 7, '{"a":1}', extra)
  return client.response()
}

/** A JSON prefix of exactly `n` bytes: `[1,1,1,...`. */
const prefix = (n: number) => `[${'1,'.repeat(Math.floor((n - 1) / 2))}${n % 2 === 0 ? '1' : ''}`

describe('the in-flight budget holds bytes, not declared lengths', () => {
  it('serves a POST while 16 idle sockets declaring 64 MiB each are held on a 256 MiB budget', async () => {
    const budget = createInFlightBudget(DEFAULT_IN_FLIGHT_BYTES)
    const { state, port } = await serve({ budget })
    const idle = 16
    for (let i = 0; i < idle; i++) await open(port, 64 * 1024 * 1024)
    await until(() => state.started === idle)
    expect(budget.inFlight).toBe(0)
    const response = await legit(port)
    expect(response.status).toBe(200)
    expect(JSON.parse(response.body)).toEqual({ value: { a: 1 } })
    expect(state.handled).toBe(1)
    // The idle sockets are still open, still being admitted, holding nothing.
    expect(clients.slice(0, idle).every((c) => !c.isClosed)).toBe(true)
    expect(state.results).toHaveLength(1)
  })

  it('control: senders holding bytes they actually sent still spend the budget, and a POST gets 503', async () => {
    // The budget still bounds what is held: four slow senders that each sent 16 KiB (of
    // 40 KiB declared, under half, so nothing is pre-sized) fill a 64 KiB budget.
    const budget = createInFlightBudget(64 * 1024)
    const { state, port } = await serve({ budget })
    for (let i = 0; i < 4; i++) await open(port, 40 * 1024, prefix(16 * 1024))
    await until(() => budget.inFlight === 64 * 1024)
    const response = await legit(port)
    expect(response.status).toBe(503)
    expect(JSON.parse(response.body)).toMatchObject({ code: 'ERR_ADMISSION_BUSY', limit: 65536 })
    expect(state.handled).toBe(0)
  })

  it('reserves the declared length once half of it has arrived, and no more than that', async () => {
    const budget = createInFlightBudget(1 << 20)
    const { state, port } = await serve({ budget })
    const client = await open(port, 1000, prefix(400))
    await until(() => budget.inFlight === 400)
    await client.write('1,'.repeat(50))
    await until(() => budget.inFlight === 1000)
    await client.write('1,'.repeat(249))
    await client.write('1]')
    expect((await client.response()).status).toBe(200)
    expect(state.handled).toBe(1)
    await until(() => budget.inFlight === 0)
  })
})

describe('minBytesPerSecond', () => {
  const slow = async (client: RawClient, pieces: number) => {
    // 8 bytes every 50 ms: about 160 bytes/s, under a 1,000 bytes/s minimum.
    for (let i = 0; i < pieces && !client.isClosed; i++) {
      await client.write('1,1,1,1,')
      await sleep(50)
    }
  }

  it('answers 408 naming minBytesPerSecond to a body slower than the minimum after the grace period, and closes', async () => {
    const { state, port } = await serve({
      minBytesPerSecond: 1000,
      minRateGraceMs: 200,
      budget: createInFlightBudget(1 << 20),
    })
    const client = await open(port, 100_000, '[')
    await slow(client, 100)
    const response = await client.response()
    expect(response.status).toBe(408)
    expect(response.headers.connection).toBe('close')
    expect(JSON.parse(response.body)).toMatchObject({ code: 'ERR_BODY_TIMEOUT', limit: 1000 })
    const result = state.results[0]
    expect(!result?.ok && result?.error.option).toBe('minBytesPerSecond')
    await client.closed
    expect(state.handled).toBe(0)
  })

  it('control: minBytesPerSecond false admits the same slow body', async () => {
    const { state, port } = await serve({
      minBytesPerSecond: false,
      minRateGraceMs: 200,
      budget: createInFlightBudget(1 << 20),
    })
    const body = `[${'1,1,1,1,'.repeat(12)}1]`
    const client = await open(port, body.length, '[')
    await slow(client, 12)
    await client.write('1]')
    const response = await client.response()
    expect(response.status).toBe(200)
    expect(state.handled).toBe(1)
  })
})

describe('per-principal shares', () => {
  const byHeader = (req: IncomingMessage) => req.headers['x-principal'] as string | undefined

  it('refuses the greedy key with 503 ERR_ADMISSION_PRINCIPAL_BUSY and Retry-After while another key is served', async () => {
    const budget = createInFlightBudget(64 * 1024)
    const { state, port } = await serve({ budget }, byHeader)
    // Key "a" holds 12 KiB; a second body of its would pass its 16 KiB share (1/4 of 64 KiB).
    await open(port, 30 * 1024, prefix(12 * 1024), ['X-Principal: a'])
    await until(() => budget.inFlight === 12 * 1024)
    const greedy = await open(port, 30 * 1024, prefix(8 * 1024), ['X-Principal: a'])
    const refused = await greedy.response()
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toBe('1')
    expect(JSON.parse(refused.body)).toMatchObject({
      code: 'ERR_ADMISSION_PRINCIPAL_BUSY',
      limit: 16 * 1024,
    })
    const served = await legit(port, ['X-Principal: b'])
    expect(served.status).toBe(200)
    expect(state.handled).toBe(1)
  })

  it('refuses a key past maxBodiesPerPrincipal while another key is served', async () => {
    const budget = createInFlightBudget(1 << 20)
    const { state, port } = await serve({ budget, maxBodiesPerPrincipal: 2 }, byHeader)
    await open(port, 1000, '[', ['X-Principal: a'])
    await open(port, 1000, '[', ['X-Principal: a'])
    await until(() => state.started === 2)
    const third = await open(port, 1000, '[', ['X-Principal: a'])
    const refused = await third.response()
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toBe('1')
    expect(JSON.parse(refused.body)).toMatchObject({
      code: 'ERR_ADMISSION_PRINCIPAL_BUSY',
      limit: 2,
    })
    const result = state.results[0]
    expect(!result?.ok && result?.error.option).toBe('maxBodiesPerPrincipal')
    expect((await legit(port, ['X-Principal: b'])).status).toBe(200)
    expect(state.handled).toBe(1)
  })

  it('control: with the share off, one key takes the whole budget and another key gets 503', async () => {
    const budget = createInFlightBudget(64 * 1024)
    const { state, port } = await serve(
      { budget, principalShare: false, maxBodiesPerPrincipal: false },
      byHeader,
    )
    for (let i = 0; i < 4; i++) {
      await open(port, 40 * 1024, prefix(16 * 1024), ['X-Principal: a'])
    }
    await until(() => budget.inFlight === 64 * 1024)
    const starved = await legit(port, ['X-Principal: b'])
    expect(starved.status).toBe(503)
    expect(JSON.parse(starved.body)).toMatchObject({ code: 'ERR_ADMISSION_BUSY' })
    expect(state.handled).toBe(0)
  })
})

describe('toHttpError (fair admission)', () => {
  it('gives a principal-share refusal the busy type, status 503 and Retry-After', () => {
    const error = toHttpError(
      new AdmissionError('ERR_ADMISSION_PRINCIPAL_BUSY', {
        limit: 8,
        option: 'maxBodiesPerPrincipal',
      }),
      3,
    )
    expect(error).toMatchObject({ status: 503, type: 'request.busy', expose: false })
    expect(error.headers['Retry-After']).toBe('3')
  })
})
