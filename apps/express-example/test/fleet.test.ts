// Three instances of the example on one real Redis, each built as main builds it (its own
// in-flight budget, its own Redis client from openFleet): one client address holds slow bodies
// across all three, and the aggregate admitted stays at the fleet's 8 while another address is
// served. The control gives each instance its own memory store and the address then holds 8 on
// each. Every socket is real and bound to a loopback address (the app's principal).
import { spawnSync } from 'node:child_process'
import { connect, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import { memoryLimitStore } from '@tollgate/fleet-limits'
import { createInFlightBudget, type InFlightBudget, principalUsage } from '@tollgate/http-admission'
import { eventually } from '@tollgate/test-kit/eventually'
import { parseResponse, type RawResponse } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import {
  freePort,
  hasRedisServer,
  type RestartableRedis,
  startRestartableRedis,
} from '@tollgate/test-kit/redis-server'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type AppOptions, createApp } from '../src/app.js'
import {
  createFleetBodies,
  FLEET_BODIES_PER_PRINCIPAL,
  type Fleet,
  fleetSettingsFromEnv,
  openFleet,
} from '../src/fleet.js'

if (!hasRedisServer)
  console.warn('\n\n*** SKIPPING express-example fleet tests: no redis-server ***\n\n')

const APP_DIR = fileURLToPath(new URL('../', import.meta.url))
const INSTANCES = 3
const ALICE = '127.0.0.5'
const BOB = '127.0.0.6'
const CAROL = '127.0.0.7'

const countOf = (log: string[], part: string) => log.filter((l) => l.includes(part)).length

let redis: RestartableRedis | undefined
beforeAll(async () => {
  if (hasRedisServer) redis = await startRestartableRedis()
})
afterAll(async () => {
  await redis?.stop()
})

interface Instance {
  readonly running: Running
  readonly budget: InFlightBudget
}

const open: Running[] = []
const fleets: Fleet[] = []
const clients: Client[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.socket.destroy()
  for (const r of open.splice(0)) await r.close()
  for (const f of fleets.splice(0)) await f.close()
})

async function instance(options: AppOptions): Promise<Instance> {
  const budget = createInFlightBudget(64 * 1024 * 1024)
  const running = await listen(createApp({ ...options, budget }))
  open.push(running)
  return { running, budget }
}

/** Three instances, each on its own connection to the test's Redis, as three processes would be. */
async function fleetOfThree(log: string[] = []): Promise<Instance[]> {
  const settings = fleetSettingsFromEnv({
    REDIS_URL: redis!.url,
    FLEET_INSTANCES: String(INSTANCES),
  })!
  const instances: Instance[] = []
  for (let i = 0; i < INSTANCES; i++) {
    const fleet = await openFleet(settings, { log: (line) => log.push(line) })
    fleets.push(fleet)
    instances.push(await instance({ fleetBodies: fleet.bodies }))
  }
  return instances
}

/** A raw socket from the loopback address `from`, collecting what the server answers. */
class Client {
  readonly socket: Socket
  private data = Buffer.alloc(0)
  constructor(port: number, from: string) {
    this.socket = connect({ port, host: '127.0.0.1', localAddress: from })
    this.socket.on('error', () => {})
    this.socket.on('data', (chunk: Buffer) => {
      this.data = Buffer.concat([this.data, chunk])
    })
    clients.push(this)
  }
  write(bytes: string): Promise<void> {
    return new Promise((resolve) => this.socket.write(bytes, () => resolve()))
  }
  answer(): RawResponse | undefined {
    return parseResponse(this.data)
  }
  async response(): Promise<RawResponse> {
    const done = await eventually(() => this.answer() !== undefined, 20_000, 10)
    if (!done) throw new Error('no response')
    return this.answer()!
  }
}

const HELD = `{"title":"held","body":"${'x'.repeat(64 * 1024)}"}`
/** Sent at once: enough bytes that the minimum data rate never cuts a held body here. */
const FIRST = 32 * 1024

function post(body: string): string {
  return [
    'POST /notes HTTP/1.1',
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    '',
  ].join('\r\n')
}

/** A POST /notes from `from` that sends half its body and holds the rest. */
async function slowPost(port: number, from: string): Promise<Client & { sent: number }> {
  const c = Object.assign(new Client(port, from), { sent: FIRST })
  await c.write(post(HELD) + HELD.slice(0, FIRST))
  return c
}

/** A complete small POST /notes from `from`. */
async function quickPost(port: number, from: string): Promise<RawResponse> {
  const body = '{"title":"quick"}'
  const c = new Client(port, from)
  await c.write(post(body) + body)
  return c.response()
}

/**
 * Nine slow bodies of ALICE on each instance. Waits until `refused` of them are answered and
 * `held` are being read across the instances (one byte every second keeps the held ones from
 * the idle timeout meanwhile), then serves BOB on every instance, then completes the held ones.
 */
async function aliceHolds(instances: Instance[], refused: number, held: number) {
  const posts: (Client & { sent: number })[] = []
  for (let round = 0; round < 9; round++) {
    for (const i of instances) posts.push(await slowPost(i.running.port, ALICE))
  }
  const reading = () => instances.reduce((n, i) => n + principalUsage(i.budget, ALICE).bodies, 0)
  const waiting = posts.filter((p) => p.answer() === undefined)
  const trickle = setInterval(() => {
    for (const p of waiting) {
      if (p.answer() === undefined) void p.write(HELD.slice(p.sent, ++p.sent))
    }
  }, 1000)
  let settled: boolean
  try {
    settled = await eventually(
      () => posts.filter((p) => p.answer() !== undefined).length === refused && reading() === held,
      20_000,
    )
  } finally {
    clearInterval(trickle)
  }
  const answered = posts.map((p) => p.answer() !== undefined)
  expect({ settled, answered: answered.filter(Boolean).length, reading: reading() }).toEqual({
    settled: true,
    answered: refused,
    reading: held,
  })
  const early = posts.filter((_, k) => answered[k]).map((p) => p.answer()!)
  // Another address is served by every instance while ALICE holds her bodies.
  const bob: number[] = []
  for (const i of instances) bob.push((await quickPost(i.running.port, BOB)).status)
  const heldPosts = posts.filter((_, k) => !answered[k])
  for (const p of heldPosts) await p.write(HELD.slice(p.sent))
  const late: RawResponse[] = []
  for (const p of heldPosts) late.push(await p.response())
  // The handler's sentinel: only admitted bodies became notes.
  let notes = 0
  for (const i of instances) {
    const found = await fetch(`http://127.0.0.1:${i.running.port}/notes?q=held`)
    notes += ((await found.json()) as { notes: unknown[] }).notes.length
  }
  return { early, late, bob, notes }
}

describe.skipIf(!hasRedisServer)('createApp fleetBodies (three instances on one Redis)', () => {
  it('holds one address to 8 bodies across the fleet, refusing the rest with 503 unread, while another address is served', async () => {
    const log: string[] = []
    const instances = await fleetOfThree(log)
    const { early, late, bob, notes } = await aliceHolds(
      instances,
      9 * INSTANCES - FLEET_BODIES_PER_PRINCIPAL,
      FLEET_BODIES_PER_PRINCIPAL,
    )
    for (const r of early) {
      expect(r.status).toBe(503)
      expect(r.headers['retry-after']).toBe('1')
      expect(JSON.parse(r.body)).toMatchObject({
        code: 'ERR_ADMISSION_PRINCIPAL_BUSY',
        limit: FLEET_BODIES_PER_PRINCIPAL,
      })
      expect(r.body).not.toContain(ALICE)
    }
    expect(bob).toEqual([201, 201, 201])
    expect(late.map((r) => r.status)).toEqual(Array(FLEET_BODIES_PER_PRINCIPAL).fill(201))
    expect(notes).toBe(FLEET_BODIES_PER_PRINCIPAL)
    // Every lease went back when its body ended: ALICE is served again on every instance.
    for (const i of instances) expect((await quickPost(i.running.port, ALICE)).status).toBe(201)
    expect(log).toEqual([])
  })

  it('falls back to 2 bodies per instance while Redis is down, logs each edge once, and counts on Redis again once it is back', async () => {
    const log: string[] = []
    const instances = await fleetOfThree(log)
    await redis!.kill()
    try {
      expect(await eventually(() => countOf(log, 'connection lost') === INSTANCES, 20_000)).toBe(
        true,
      )
      const share = Math.floor(FLEET_BODIES_PER_PRINCIPAL / INSTANCES)
      const down = await aliceHolds(instances, 9 * INSTANCES - share * INSTANCES, share * INSTANCES)
      for (const r of down.early) {
        expect(r.status).toBe(503)
        expect(JSON.parse(r.body)).toMatchObject({
          code: 'ERR_ADMISSION_PRINCIPAL_BUSY',
          limit: share,
        })
      }
      expect(down.bob).toEqual([201, 201, 201])
      expect(down.notes).toBe(share * INSTANCES)
      expect(countOf(log, 'Redis unreachable')).toBe(INSTANCES)
    } finally {
      await redis!.start()
    }
    // Back without a restart: a request on each instance ends its outage (asked once a second).
    const back = await eventually(
      async () => {
        for (const i of instances) await quickPost(i.running.port, CAROL)
        return countOf(log, 'Redis answers again') === INSTANCES
      },
      20_000,
      500,
    )
    expect(back).toBe(true)
    const up = await aliceHolds(
      instances,
      9 * INSTANCES - FLEET_BODIES_PER_PRINCIPAL,
      FLEET_BODIES_PER_PRINCIPAL,
    )
    expect(up.late).toHaveLength(FLEET_BODIES_PER_PRINCIPAL)
    expect(log.join('\n')).not.toContain(redis!.url)
  })

  it('control: with a memory store per instance the address holds 8 bodies on each, 24 in all', async () => {
    const instances: Instance[] = []
    for (let i = 0; i < INSTANCES; i++) {
      const fleetBodies = createFleetBodies({ store: memoryLimitStore(), instances: INSTANCES })
      instances.push(await instance({ fleetBodies }))
    }
    const { early, late, notes } = await aliceHolds(
      instances,
      9 * INSTANCES - FLEET_BODIES_PER_PRINCIPAL * INSTANCES,
      FLEET_BODIES_PER_PRINCIPAL * INSTANCES,
    )
    expect(early.map((r) => r.status)).toEqual([503, 503, 503])
    expect(late).toHaveLength(FLEET_BODIES_PER_PRINCIPAL * INSTANCES)
    expect(notes).toBe(FLEET_BODIES_PER_PRINCIPAL * INSTANCES)
  })
})

describe('createApp', () => {
  it('refuses fleetBodies at construction when the per-address principal is off', () => {
    const fleetBodies = createFleetBodies({ store: memoryLimitStore(), instances: 1 })
    expect(() => createApp({ principal: false, fleetBodies })).toThrow(TypeError)
    expect(() => createApp({ fleetBodies })).not.toThrow()
  })
})

describe('fleetSettingsFromEnv', () => {
  it('answers undefined without REDIS_URL, and the instance count with it (default 1)', () => {
    expect(fleetSettingsFromEnv({})).toBeUndefined()
    expect(fleetSettingsFromEnv({ REDIS_URL: 'redis://127.0.0.1:6379' })).toEqual({
      redisUrl: 'redis://127.0.0.1:6379',
      instances: 1,
    })
    expect(
      fleetSettingsFromEnv({ REDIS_URL: 'rediss://u:p@h:6380', FLEET_INSTANCES: '3' })?.instances,
    ).toBe(3)
  })

  it('refuses a bad FLEET_INSTANCES or REDIS_URL, naming the variable and never the value', () => {
    for (const FLEET_INSTANCES of ['0', '-1', '2.5', 'three', '1001', ' 3']) {
      expect(() =>
        fleetSettingsFromEnv({ REDIS_URL: 'redis://127.0.0.1:6379', FLEET_INSTANCES }),
      ).toThrow(/^FLEET_INSTANCES must be/)
    }
    expect(() => fleetSettingsFromEnv({ FLEET_INSTANCES: '3' })).toThrow(/REDIS_URL is not/)
    expect(() => fleetSettingsFromEnv({ REDIS_URL: 'http://u:s3cret@h' })).toThrow(
      /^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL$/,
    )
  })
})

describe('main', () => {
  it('exits 1 at start naming REDIS_URL, never the URL, when Redis cannot be reached', async () => {
    const port = await freePort()
    const child = spawnSync(
      process.execPath,
      ['--conditions=@tollgate/source', '--import', 'tsx', 'src/main.ts'],
      {
        cwd: APP_DIR,
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          ...process.env,
          PORT: '0',
          REDIS_URL: `redis://fleet-user:s3cret@127.0.0.1:${port}`,
          FLEET_INSTANCES: '3',
        },
      },
    )
    expect(child.status).toBe(1)
    expect(child.stderr).toContain('REDIS_URL: Redis cannot be reached')
    expect(child.stderr + child.stdout).not.toMatch(/s3cret|fleet-user|redis:\/\//)
    expect(child.stdout).not.toContain('notes API on')
  })
})
