// Fair per caller, through real sockets: anonymous callers keyed each by its address (here
// told apart by a trusted loopback proxy's X-Forwarded-For) inside one anonymous pool. One
// address holding slow bodies keeps its own quarter of the pool; the pool keeps its one
// principal's share of the budget, so credentials are served whatever anonymous traffic does.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { head, RawClient } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type AdmitCall,
  admitNodeRequest,
  admitWebRequest,
  type BodyAdmissionOptions,
  bodyAdmission,
  callerKeys,
  createInFlightBudget,
  principalUsage,
  sendRefusal,
} from '../src/index.js'
import { until } from './helpers/wait.js'

let running: Running | undefined
const clients: RawClient[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy()
  await running?.close()
  running = undefined
})

// The test clients all connect from 127.0.0.1, which is the trusted proxy: each request's
// X-Forwarded-For names the caller it stands for.
const callers = callerKeys({ trustedProxies: ['127.0.0.1'] })

type Keying = (req: IncomingMessage) => Pick<AdmitCall, 'principal' | 'pool'>

/** Per caller: a credential is its own principal; anyone else its address, in the anonymous pool. */
const perCaller: Keying = (req) =>
  req.headers.authorization !== undefined
    ? { principal: `credential:${req.headers.authorization}` }
    : { principal: callers.keyOf(req), pool: 'anonymous' }

/** The control removed: every anonymous caller under one label (what issue 29 row 1 found). */
const oneLabel: Keying = (req) => ({
  principal: req.headers.authorization !== undefined ? 'credential' : 'anonymous',
})

/** The control removed the other way: each address its own principal, no pool around them. */
const noPool: Keying = (req) =>
  req.headers.authorization !== undefined
    ? { principal: `credential:${req.headers.authorization}` }
    : { principal: callers.keyOf(req) }

/** A server whose handler (the sentinel) runs only for admitted bodies. */
async function serve(options: BodyAdmissionOptions, keying: Keying) {
  const body = bodyAdmission(options)
  const state = { handled: 0, started: 0 }
  running = await listen(async (req: IncomingMessage, res: ServerResponse) => {
    state.started++
    const result = await admitNodeRequest(req, body, keying(req))
    if (!result.ok) return sendRefusal(res, result.error)
    state.handled++
    res.setHeader('content-type', 'application/json')
    res.end('{}')
  })
  return { state, port: running.port }
}

/** Opens a POST as `who` (a forwarded address, or `credential`), sends `body`, keeps the socket. */
async function open(port: number, who: string, length: number, body: string) {
  const client = new RawClient(port)
  clients.push(client)
  await client.write(
    head([
      'POST / HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      `Content-Length: ${length}`,
      who === 'credential' ? 'Authorization: Bearer c' : `X-Forwarded-For: ${who}`,
    ]),
  )
  if (body !== '') await client.write(body)
  return client
}

const legit = async (port: number, who: string) => (await open(port, who, 7, '{"a":1}')).response()
const prefix = (n: number) => `[${'1,'.repeat(Math.floor((n - 1) / 2))}${n % 2 === 0 ? '1' : ''}`
const ATTACKER = '198.51.100.7'

describe('callerKeys with per-principal pools', () => {
  it("holds one anonymous address to a quarter of the pool's bodies while other anonymous callers and credentials are served", async () => {
    const budget = createInFlightBudget(1 << 20)
    const { state, port } = await serve({ budget }, perCaller)
    // The attacker's slow bodies: two are admitted (8 × 0.25), every further one refused.
    await open(port, ATTACKER, 1000, '[')
    await open(port, ATTACKER, 1000, '[')
    await until(() => principalUsage(budget, `ip:${ATTACKER}`).bodies === 2)
    for (let i = 0; i < 6; i++) {
      const refused = await (await open(port, ATTACKER, 1000, '[')).response()
      expect(refused.status).toBe(503)
      expect(JSON.parse(refused.body)).toMatchObject({
        code: 'ERR_ADMISSION_PRINCIPAL_BUSY',
        limit: 2,
      })
    }
    expect((await legit(port, '203.0.113.9')).status).toBe(200)
    expect((await legit(port, '2001:db8:7::1')).status).toBe(200)
    expect((await legit(port, 'credential')).status).toBe(200)
    expect(state.handled).toBe(3)
  })

  it('keys an IPv6 caller by its /64: another address of the same /64 is the same caller', async () => {
    const budget = createInFlightBudget(1 << 20)
    const { state, port } = await serve({ budget }, perCaller)
    await open(port, '2001:db8:1:2::a', 1000, '[')
    await open(port, '2001:db8:1:2::b', 1000, '[')
    await until(() => principalUsage(budget, 'ip:2001:db8:1:2:0:0:0:0/64').bodies === 2)
    const refused = await (await open(port, '2001:db8:1:2:ffff::c', 1000, '[')).response()
    expect(refused.status).toBe(503)
    expect((await legit(port, '2001:db8:1:3::a')).status).toBe(200)
    expect(state.handled).toBe(1)
  })

  it("keeps the whole anonymous pool to one principal's share of the budget: a credential is served while it is full", async () => {
    // 64 KiB budget: the pool holds at most 16 KiB, each address 4 KiB of it.
    const budget = createInFlightBudget(64 * 1024)
    const { state, port } = await serve({ budget }, perCaller)
    for (const address of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4']) {
      await open(port, address, 30 * 1024, prefix(4 * 1024))
    }
    await until(() => budget.inFlight === 16 * 1024)
    const fifth = await (await open(port, '192.0.2.5', 30 * 1024, prefix(1024))).response()
    expect(fifth.status).toBe(503)
    expect(JSON.parse(fifth.body)).toMatchObject({
      code: 'ERR_ADMISSION_PRINCIPAL_BUSY',
      limit: 16 * 1024,
    })
    expect((await legit(port, 'credential')).status).toBe(200)
    expect(state.handled).toBe(1)
  })

  it('control: under one anonymous label, one caller holding 8 slow bodies starves every other anonymous caller', async () => {
    const budget = createInFlightBudget(1 << 20)
    const { state, port } = await serve({ budget }, oneLabel)
    for (let i = 0; i < 8; i++) await open(port, ATTACKER, 1000, '[')
    await until(() => principalUsage(budget, 'anonymous').bodies === 8)
    const starved = await legit(port, '203.0.113.9')
    expect(starved.status).toBe(503)
    expect(JSON.parse(starved.body)).toMatchObject({ code: 'ERR_ADMISSION_PRINCIPAL_BUSY' })
    expect(state.handled).toBe(0)
  })

  it('control: without the pool, anonymous addresses together take the budget and a credential gets 503', async () => {
    const budget = createInFlightBudget(64 * 1024)
    const { state, port } = await serve({ budget }, noPool)
    for (const address of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4']) {
      await open(port, address, 40 * 1024, prefix(16 * 1024))
    }
    await until(() => budget.inFlight === 64 * 1024)
    const starved = await legit(port, 'credential')
    expect(starved.status).toBe(503)
    expect(JSON.parse(starved.body)).toMatchObject({ code: 'ERR_ADMISSION_BUSY' })
    expect(state.handled).toBe(0)
  })
})

describe('admitWebRequest with a pool', () => {
  it('holds a pooled principal of a web Request to its member share', async () => {
    const budget = createInFlightBudget(1 << 20)
    const body = bodyAdmission({ budget })
    const aborts: AbortController[] = []
    const stalled = () => {
      const abort = new AbortController()
      aborts.push(abort)
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('['))
        },
      })
      return new Request('http://127.0.0.1/', {
        method: 'POST',
        body: stream,
        headers: { 'content-type': 'application/json' },
        duplex: 'half',
        signal: abort.signal,
      } as RequestInit)
    }
    const call = { principal: `ip:${ATTACKER}`, pool: 'anonymous' }
    const held = [admitWebRequest(stalled(), body, call), admitWebRequest(stalled(), body, call)]
    await until(() => principalUsage(budget, `ip:${ATTACKER}`).bodies === 2)
    const third = await admitWebRequest(stalled(), body, call)
    expect(third.ok).toBe(false)
    expect(!third.ok && third.error).toMatchObject({
      code: 'ERR_ADMISSION_PRINCIPAL_BUSY',
      limit: 2,
    })
    for (const a of aborts) a.abort()
    await Promise.all(held)
  })
})
