// @tollgate/continuation: redeem latency (memory and Redis stores), mint throughput, and the
// cost of re-authorization relative to serving the cached entry. Anchors, same run:
//   - serving the cached entry = store.get(hash) of the stored record (what redemption does
//     without the owner check and re-authorization);
//   - mint anchor = store.set of the same record under a fresh key (what mint does without the
//     token, hashes and record header).
// Redis: TOLLGATE_REDIS_URL, else a private redis-server on a random 127.0.0.1 port.
import { randomBytes } from 'node:crypto'
import {
  authorizeOnRoute,
  createContinuations,
  createMemoryStore,
  createRouteView,
  createToolRegistry,
  hashToken,
  resolveScoped,
} from '@tollgate/continuation'
import { createRedisStore } from '@tollgate/continuation/redis'
import { hasRedisServer, startRedis } from '@tollgate/test-kit/redis-server'
import { createClient } from 'redis'
import { machine, medianNs, printTable, writeResults } from './lib.mjs'

const registry = createToolRegistry([
  { name: 'knowledge', tier: 'read' },
  ...Array.from({ length: 200 }, (_, i) => ({ name: `knowledge.r${i}.get`, tier: 'read' })),
  { name: 'knowledge.notes.list', tier: 'read', capabilities: ['notes:read'] },
  { name: 'continuation.fetch', tier: 'read' },
])
const team = createRouteView({
  name: '/mcp/team',
  registry,
  ceiling: 'read',
  mount: ['knowledge', 'knowledge.**', 'continuation.fetch'],
  deny: ['knowledge.r1.*'],
})
const permissions = new Set(['notes:read'])
const resolved = resolveScoped(
  team,
  { kind: 'group', dispatcher: 'knowledge', resource: 'notes', action: 'list' },
  permissions,
)
if (!resolved.ok) throw new Error('bench target did not resolve')

const inputs = {
  'heavy-70KiB JSON': JSON.stringify({ rows: 'x'.repeat(70 * 1024) }),
  'heavy-1MiB JSON': JSON.stringify({ rows: 'x'.repeat(1024 * 1024) }),
}

// The kit's spawner (the one the Redis test suites use), unless CI already gives a server.
async function redisForBench() {
  if (process.env.TOLLGATE_REDIS_URL) return { url: process.env.TOLLGATE_REDIS_URL, stop() {} }
  return hasRedisServer ? startRedis() : undefined
}

const ctx = { ownerKey: 'owner-a', route: team, permissions }
const rows = []
const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(2)} µs`)

async function suite(storeName, store) {
  const service = createContinuations({ store })
  for (const [instance, payload] of Object.entries(inputs)) {
    const m = await service.mint({ ownerKey: 'owner-a', target: resolved.target, payload })
    if (!m.ok) throw new Error(`mint failed: ${m.error.code}`)
    const key = hashToken(m.token)
    const check = await service.redeem(m.token, ctx)
    if (!check.ok) throw new Error('redeem failed')
    const anchorGet = await medianNs(() => store.get(key))
    const redeem = await medianNs(() => service.redeem(m.token, ctx))
    rows.push([
      storeName,
      instance,
      'redeem (owner + re-authorization + serve)',
      'store.get of the entry',
      fmt(redeem),
      fmt(anchorGet),
      (redeem / anchorGet).toFixed(2),
    ])
    const record = await store.get(key)
    let n = 0
    const anchorSet = await medianNs(() => store.set(`bench-${n++ % 64}`, record, 60_000))
    const mint = await medianNs(() =>
      service.mint({ ownerKey: 'owner-a', target: resolved.target, payload }),
    )
    rows.push([
      storeName,
      instance,
      `mint (${Math.round(1e9 / mint).toLocaleString('en')} ops/s)`,
      'store.set of the record',
      fmt(mint),
      fmt(anchorSet),
      (mint / anchorSet).toFixed(2),
    ])
  }
}

// Re-authorization alone against the cost of serving the cached entry from memory.
{
  const store = createMemoryStore()
  const service = createContinuations({ store })
  const m = await service.mint({
    ownerKey: 'owner-a',
    target: resolved.target,
    payload: inputs['heavy-70KiB JSON'],
  })
  const key = hashToken(m.token)
  const reauth = await medianNs(() => authorizeOnRoute(team, 'knowledge.notes.list', permissions))
  const get = await medianNs(() => store.get(key))
  rows.push([
    'memory',
    'heavy-70KiB JSON',
    'authorizeOnRoute (the four dimensions)',
    'store.get of the entry',
    fmt(reauth),
    fmt(get),
    (reauth / get).toFixed(2),
  ])
  const miss = await medianNs(() =>
    resolveScoped(
      team,
      { kind: 'group', dispatcher: 'knowledge', resource: 'ghost', action: 'get' },
      permissions,
    ),
  )
  const elsewhere = await medianNs(() =>
    resolveScoped(
      team,
      { kind: 'group', dispatcher: 'knowledge', resource: 'r1', action: 'get' },
      permissions,
    ),
  )
  rows.push([
    '—',
    'composed name',
    'resolveScoped, name mounted nowhere',
    'resolveScoped, name carved out of this route',
    fmt(miss),
    fmt(elsewhere),
    (miss / elsewhere).toFixed(2),
  ])
}

await suite('memory', createMemoryStore())
const redis = await redisForBench()
let client
if (redis) {
  client = createClient({ url: redis.url, disableOfflineQueue: true })
  client.on('error', () => {})
  await client.connect()
  await suite(
    'redis',
    createRedisStore({ client, prefix: `tollgate:bench:${randomBytes(4).toString('hex')}:` }),
  )
} else {
  console.warn('no redis-server: the Redis rows are missing')
}

const headers = ['store', 'input', 'subject', 'anchor', 'subject p50', 'anchor p50', 'ratio']
printTable(headers, rows)
const m = machine()
console.log(`\nNode ${m.node}, ${m.cores} cores, ${m.cpu}`)
writeResults(
  'continuation',
  rows.map((r) => Object.fromEntries(headers.map((h, i) => [h, r[i]]))),
)
if (client) {
  const keys = await client.keys('tollgate:bench:*')
  if (keys.length) await client.del(keys)
  client.destroy()
}
await redis?.stop()
