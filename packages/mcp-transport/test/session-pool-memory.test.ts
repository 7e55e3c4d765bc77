// SessionPool's memory is bounded by the sessions it holds, not by the keys it has ever seen:
// a key whose last slot is released leaves nothing behind. A server that keys sessions by
// something a caller picks (a client address, a tenant name) would otherwise keep one entry per
// key forever. Measured on the built package (dist) in a child process with `--expose-gc`,
// so the heap is read after a full collection and nothing of the test runner is in it.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const DIST = new URL('../dist/index.js', import.meta.url).href
const MiB = 1024 * 1024
const KEYS = 20_000

function heapGrowth(commit: boolean): { grown: number; size: number; counted: number } {
  const script = `
import { SessionPool } from ${JSON.stringify(DIST)}
const pool = new SessionPool({ maxSessions: 10, maxSessionsPerKey: 1, idleMs: false })
const open = (key, i) => {
  const r = pool.reserve(key)
  if (!r.ok) throw new Error(r.error.code)
  if (${commit}) {
    r.slot.commit('s' + i, i, () => {})
    r.slot.release()
    pool.delete('s' + i)
  } else r.slot.release()
}
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed }
for (let i = 0; i < 1000; i++) open('warm-' + i, i)
const before = heap()
for (let i = 0; i < ${KEYS}; i++) open('caller-' + i, i)
const grown = heap() - before
let counted = 0
for (let i = 0; i < ${KEYS}; i += 1000) counted += pool.countOf('caller-' + i)
console.log(JSON.stringify({ grown, size: pool.size, counted }))
`
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    cwd: fileURLToPath(new URL('..', import.meta.url)),
  })
  return JSON.parse(out)
}

describe('SessionPool memory', () => {
  it('keeps nothing for 20,000 keys whose slots were all released or their sessions deleted', () => {
    for (const commit of [false, true]) {
      const { grown, size, counted } = heapGrowth(commit)
      expect([size, counted]).toEqual([0, 0])
      // One map entry per key would be about 1.6 MB here; a bounded pool grows by nothing.
      expect(grown).toBeLessThan(MiB / 2)
    }
  })
})
