import { describe, expect, it } from 'vitest'
import { createPreflight, type Preflight, type PreflightOptions } from '../src/index.js'
import { WASM_MAX_DEPTH } from '../src/wasm-instance.js'

// A preflight runs on untrusted bytes before anything else does, so its own cost must grow with
// the input, not with tokens times the 64 KiB slice the JS scanner reads at a time: a scanner that
// rescans the rest of the slice at every number admits the same documents but spends seconds per
// 64 KiB of `1,1,1,…`, which makes the admission control itself the denial of service. Asserted as
// service before a generous deadline (the JS scanner takes tens of milliseconds here; a
// per-number rescan of the slice, about a second per 64 KiB), never as a timing comparison.

const SCANNERS: ReadonlyArray<readonly [string, (options: PreflightOptions) => Preflight]> = [
  ['the WebAssembly scanner', (options) => createPreflight(options)],
  // A maxDepth past the module's container bits and no key policy: the JS fast path.
  ['the JS scanner', (options) => createPreflight({ ...options, maxDepth: WASM_MAX_DEPTH + 1 })],
  [
    'the JS scanner with a key policy',
    (options) => createPreflight({ maxDepth: 1000, ...options, duplicateKeys: 'refuse' }),
  ],
]

const DEADLINE_MS = 5000

describe('the cost of a scan', () => {
  it('admits 2 MiB of one-digit numbers in one push before a 5 s deadline, through every scanner', () => {
    const count = 1 << 20
    const doc = new TextEncoder().encode(`[${'1,'.repeat(count - 1)}1]`)
    const options: PreflightOptions = { maxBytes: 4 << 20, maxNodes: 2 * count }
    for (const [name, make] of SCANNERS) {
      const started = performance.now()
      const scanner = make(options)
      scanner.push(doc)
      const { nodes, depth } = scanner.end()
      const elapsed = performance.now() - started
      expect({ name, nodes, depth }).toEqual({ name, nodes: count + 1, depth: 1 })
      expect({ name, inTime: elapsed < DEADLINE_MS }).toEqual({ name, inTime: true })
    }
  })
})
