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
  // A key policy: the WebAssembly scanner on a module of its own.
  [
    'the WebAssembly scanner with a key policy',
    (options) => createPreflight({ maxDepth: 1000, ...options, duplicateKeys: 'refuse' }),
  ],
  // A key policy past the container bits: the JS scanner's byte machine alone.
  [
    'the JS scanner with a key policy',
    (options) =>
      createPreflight({ ...options, maxDepth: WASM_MAX_DEPTH + 1, duplicateKeys: 'refuse' }),
  ],
]

// Measured once on this project's 2-core machine at load 2–9: the three scanners together took
// about 60 ms on each 2 MiB number document and 220 ms on the 16 MiB string one; the rescan of
// the slice per number (the mutant of scanner.ts line 307) took 20 s or more on the integer one.
// A deadline, not a comparison: it fails only near a hundred times the cost measured, where a
// per-number rescan lands.
const DEADLINE_MS = 20_000

// One document per digit loop of the number grammar (integer part, fraction, exponent), each
// about 2 MiB of short numbers in one push.
const NUMBERS = [
  ['one-digit integers', '1'],
  ['one-digit fractions', '1.1'],
  ['one-digit exponents', '1e1'],
] as const

/** `[x,x,…,x]`, `count` copies of `item`, as bytes. */
const arrayOf = (item: string, count: number) =>
  new TextEncoder().encode(`[${`${item},`.repeat(count - 1)}${item}]`)

/** Admits `doc`, an array of `count` scalars, in one push through every scanner, each in time. */
function admitsInTime(doc: Uint8Array, count: number, maxBytes: number): void {
  const options: PreflightOptions = { maxBytes, maxNodes: 2 * count }
  for (const [name, make] of SCANNERS) {
    const started = performance.now()
    const scanner = make(options)
    scanner.push(doc)
    const { nodes, depth } = scanner.end()
    const elapsed = performance.now() - started
    expect({ name, nodes, depth }).toEqual({ name, nodes: count + 1, depth: 1 })
    expect({ name, inTime: elapsed < DEADLINE_MS }).toEqual({ name, inTime: true })
  }
}

describe('the cost of a scan', () => {
  it.each(NUMBERS)(
    'admits 2 MiB of %s in one push before a 20 s deadline, through every scanner',
    (_kind, number) => {
      const count = Math.floor((2 << 20) / (number.length + 1))
      admitsInTime(arrayOf(number, count), count, 4 << 20)
    },
  )

  // A string past the fast path's first 25 bytes is skipped word by word up to the next quote or
  // backslash, each found by memchr and kept for the later strings of the chunk. Searched again
  // for every string instead, a chunk with no backslash costs strings times chunk length.
  it('admits 16 MiB of 40-byte strings in one push before a 20 s deadline, through every scanner', () => {
    const text = `"${'a'.repeat(38)}"`
    const count = Math.floor((16 << 20) / (text.length + 1))
    admitsInTime(arrayOf(text, count), count, 32 << 20)
  })
})
