// An instance holding leases dies without releasing them (SIGKILL: no handler runs). Its
// leases stop being renewed, so Redis holds them at most `leaseMs` past the kill, and the other
// instances get the places back without anyone cleaning up. The child runs the built package
// (`pnpm --filter @tollgate/fleet-limits build` first; the test task depends on it).

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { eventually } from '@tollgate/test-kit/eventually'
import { describe, expect, it } from 'vitest'
import { createConcurrencyLimit } from '../src/index.js'
import { redisLimitStore } from '../src/redis.js'
import { fresh } from './helpers/limit-contract.js'
import { useRedis } from './helpers/redis.js'

const redis = useRedis()
const holder = fileURLToPath(new URL('./fixtures/lease-holder.mjs', import.meta.url))
const LEASE_MS = 1500

async function redisNow(client: Awaited<ReturnType<typeof redis.client>>): Promise<number> {
  const [seconds, micros] = (await client.sendCommand(['TIME'])) as [string, string]
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)
}

describe.skipIf(!redis.available)('createConcurrencyLimit when a holder is killed', () => {
  it('frees the leases of a SIGKILLed instance within leaseMs of its death', async () => {
    const name = fresh('crash')
    const client = await redis.client()
    const child = spawn(
      process.execPath,
      [holder, redis.url(), redis.prefix, name, '3', String(LEASE_MS)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    expect(await eventually(() => out.includes('held') || child.exitCode !== null, 20_000)).toBe(
      true,
    )
    expect(out).toBe('held\n')

    const limit = createConcurrencyLimit({
      store: redisLimitStore({ client, prefix: redis.prefix }),
      name,
      limit: 3,
      leaseMs: LEASE_MS,
    })
    // While the holder lives (and renews), its three leases fill the limit on every instance.
    expect(await limit.acquire('alice')).toMatchObject({ ok: false, code: 'ERR_LIMIT_CONCURRENT' })

    child.kill('SIGKILL')
    await once(child, 'exit')
    const afterDeath = await redisNow(client)
    // Every lease the dead instance left expires no later than leaseMs after its death: the
    // last renewal it could have sent was before it died.
    const entries = await client.zRangeWithScores(`${redis.prefix}{${name}}:l:alice`, 0, -1)
    expect(entries).toHaveLength(3)
    for (const e of entries) expect(e.score).toBeLessThanOrEqual(afterDeath + LEASE_MS)

    // And the places come back, to another instance, with no clean-up by anyone.
    const taken: unknown[] = []
    expect(
      await eventually(async () => {
        const lease = await limit.acquire('alice')
        if (lease.ok) taken.push(lease)
        return taken.length === 3
      }, 20_000),
    ).toBe(true)
  })
})
