// Pins in Redis (`--pins redis:<name>`), on a private redis-server. Three real gateways, each
// with its own stdio child: the first to read `tools/list` pins it; an instance whose child
// describes `echo` differently quarantines it (out of tools/list, its calls never reach the
// child), while the control, the same child with pins in memory, serves the changed tool.
// The operator's approval (`tollgate-gateway pins approve --pins redis:<name>`) reaches every
// running instance without a restart. Then the store itself on the real Redis: one first pin
// among racing judges, and no approval lost when two operators approve different tools at once.
import { spawnSync } from 'node:child_process'
import { eventually } from '@tollgate/test-kit/eventually'
import { hasRedisServer, type RedisProcess, startRedis } from '@tollgate/test-kit/redis-server'
import { createClient } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redisPinStore } from '../src/pins-redis.js'
import type { UpstreamTool } from '../src/tool-guard.js'
import {
  CLI,
  MISBEHAVING,
  modern,
  type RunningCli,
  recorded,
  recordFile,
  startCli,
} from './fixtures/run-gateway.js'

if (!hasRedisServer) {
  console.warn('\n\n*** SKIPPING the gateway Redis pins tests: no redis-server on PATH ***\n\n')
}

const CHANGED = { ECHO_DESCRIPTION: 'Echoes its message, and reads your files' }

async function listed(g: RunningCli): Promise<string[]> {
  const a = await modern(g.url, 1, 'tools/list')
  const tools = (a.body?.result as { tools?: { name: string }[] } | undefined)?.tools ?? []
  return tools.map((t) => t.name)
}

describe.runIf(hasRedisServer)('redisPinStore: three gateways on one Redis', () => {
  let redis: RedisProcess
  let fleet: RunningCli[] = []
  let control: RunningCli | undefined
  const record = recordFile()
  const start = (env: NodeJS.ProcessEnv = {}, pins = ['--pins', 'redis:fleet']) =>
    startCli(['--redis-url', redis.url, ...pins, '--', process.execPath, MISBEHAVING], env)

  beforeAll(async () => {
    redis = await startRedis()
    // The first instance pins what its child lists; the second's child has changed since.
    const first = await start()
    fleet = [first, ...(await Promise.all([start({ ...CHANGED, RECORD_FILE: record }), start()]))]
    control = await start(CHANGED, [])
  }, 90_000)
  afterAll(async () => {
    await Promise.all([...fleet, control].map((g) => g?.stop('SIGKILL')))
    await redis?.stop()
  })

  it('pins on the first instance and quarantines on another a tool its upstream describes differently; the call never reaches that upstream', async () => {
    const [a, b, c] = fleet as [RunningCli, RunningCli, RunningCli]
    expect(await listed(a)).toContain('echo')
    expect(await listed(c)).toContain('echo')
    expect(await listed(b)).not.toContain('echo')
    expect(b.logs().some((l) => l.event === 'tool_drifted' && l.tool === 'echo')).toBe(true)
    expect(fleet.flatMap((g) => g.logs()).filter((l) => l.event === 'pins_created')).toHaveLength(1)
    const call = await modern(b.url, 2, 'tools/call', {
      name: 'echo',
      arguments: { message: 'sentinel-pins' },
    })
    // Off the served surface: refused from the head, as an unknown tool is.
    expect(call.status).toBe(400)
    expect(call.body?.error).toMatchObject({ code: -32602 })
    expect(JSON.stringify(recorded(record))).not.toContain('sentinel-pins')
  })

  it('control: with pins in memory, the instance whose upstream changed serves the changed tool', async () => {
    expect(await listed(control as RunningCli)).toContain('echo')
  })

  it('approves the changed definition with the documented command, and every running instance follows without a restart', async () => {
    const approve = spawnSync(
      process.execPath,
      [
        CLI,
        'pins',
        'approve',
        '--pins',
        'redis:fleet',
        '--redis-url',
        redis.url,
        '--tool',
        'echo',
        '--',
        process.execPath,
        MISBEHAVING,
      ],
      { encoding: 'utf8', env: { ...process.env, ...CHANGED }, timeout: 60_000 },
    )
    expect(approve.status).toBe(0)
    expect(JSON.parse(approve.stdout)).toEqual({ event: 'pins_approved', tools: ['echo'] })
    const [a, b, c] = fleet as [RunningCli, RunningCli, RunningCli]
    // The approved definition is served where the upstream lists it; elsewhere it is the drift.
    // A poll whose connection the gateway closed under it is asked again, never taken as an answer.
    const lists = (g: RunningCli, served: boolean) =>
      eventually(
        () =>
          listed(g).then(
            (names) => names.includes('echo') === served,
            () => false,
          ),
        20_000,
        200,
      )
    expect(await lists(b, true)).toBe(true)
    expect(await lists(a, false)).toBe(true)
    expect(await lists(c, false)).toBe(true)
  }, 60_000)
})

const tool = (name: string, description: string): UpstreamTool =>
  ({ name, description, inputSchema: { type: 'object' } }) as UpstreamTool

describe.runIf(hasRedisServer)('redisPinStore on a real Redis', () => {
  let redis: RedisProcess
  let client: ReturnType<typeof createClient>

  beforeAll(async () => {
    redis = await startRedis()
    client = createClient({ url: redis.url, disableOfflineQueue: true })
    // The last test stops the server: the client's reconnection errors are expected.
    client.on('error', () => {})
    await client.connect()
  }, 30_000)
  afterAll(async () => {
    client?.destroy()
    await redis?.stop()
  })

  it('pins once when eight instances judge at the same moment; each judges its list against that pin', async () => {
    const stores = Array.from({ length: 8 }, () => redisPinStore({ client, name: 'race' }))
    const judged = await Promise.all(stores.map((s, i) => s.judge([tool('echo', `v${i}`)])))
    const first = judged.filter((j) => j.firstSight)
    expect(first).toHaveLength(1)
    const winner = first[0]!.approved[0]!.description
    for (const [i, j] of judged.entries()) {
      if (j.firstSight) continue
      const same = `v${i}` === winner
      expect(j.approved.map((t) => t.name)).toEqual(same ? ['echo'] : [])
      expect(j.drifted).toEqual(same ? [] : [{ name: 'echo', reason: 'changed' }])
    }
  })

  it('loses no approval when two operators approve different tools at once', async () => {
    const store = redisPinStore({ client, name: 'approvals' })
    const before = [tool('a', 'old'), tool('b', 'old')]
    const after = [tool('a', 'new'), tool('b', 'new')]
    expect((await store.judge(before)).firstSight).toBe(true)
    expect((await store.judge(after)).approved).toEqual([])
    await Promise.all([store.approve(after, ['a']), store.approve(after, ['b'])])
    const judged = await store.judge(after)
    expect(judged.approved.map((t) => t.name)).toEqual(['a', 'b'])
    expect(judged.drifted).toEqual([])
  })

  it('refuses to approve a name neither listed nor pinned, and changes nothing', async () => {
    const store = redisPinStore({ client, name: 'typo' })
    await store.judge([tool('a', 'one')])
    await expect(store.approve([tool('a', 'two')], ['a', 'nope'])).rejects.toMatchObject({
      code: 'ERR_PINS_FILE',
    })
    expect((await store.judge([tool('a', 'one')])).approved.map((t) => t.name)).toEqual(['a'])
  })

  it('judges against the pins read last while Redis is down, and approves nothing with none read (ERR_PINS_STORE)', async () => {
    const seen = redisPinStore({ client, name: 'outage' })
    const fresh = redisPinStore({ client, name: 'outage' })
    expect((await seen.judge([tool('a', 'one')])).firstSight).toBe(true)
    await redis.stop()
    const same = await seen.judge([tool('a', 'one')])
    expect([same.approved.map((t) => t.name), same.error]).toEqual([['a'], undefined])
    expect((await seen.judge([tool('a', 'two')])).drifted).toEqual([
      { name: 'a', reason: 'changed' },
    ])
    const none = await fresh.judge([tool('a', 'one')])
    expect([none.approved, none.error]).toEqual([[], 'ERR_PINS_STORE'])
  }, 30_000)
})

describe('redisPinsName (tollgate-gateway --pins redis:<name>)', () => {
  it('refuses pins in Redis without a Redis at start, with exit 2 naming --redis-url', () => {
    const result = spawnSync(
      process.execPath,
      [CLI, '--pins', 'redis:fleet', '--', process.execPath, MISBEHAVING],
      { encoding: 'utf8', timeout: 30_000 },
    )
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('--redis-url')
  })
})
