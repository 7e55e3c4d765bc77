import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { type Preflight, resolvePreflightOptions } from '../src/index.js'
import { PreflightScanner } from '../src/scanner.js'
import { scannerModule, WASM_MAX_DEPTH } from '../src/wasm-instance.js'
import { WasmPreflightScanner } from '../src/wasm-scanner.js'
import { scanOf, utf8 } from './helpers/every-scanner.js'

// Every WebAssembly scanner shares one module, so a push of a scanner whose state the module
// does not hold loads the scanner's container bits (one per open level) into it, and the
// scanner the module held takes its own out. Copied whole, a push at depth d costs d / 32 words
// however small it is: at maxDepth 2^20, a 1-byte push copied 65,536 words (32,768 in, 32,768
// out), so a client sending one byte at a time at that depth, beside another request, held a
// core per connection. The scanner copies only the words a piece of n bytes can touch, and
// takes out only the words its pieces wrote; these tests count those words (never time) at
// depth × chunk size with another scanner pushing between every two pushes (so each push loads
// its state again), and switch the window off to show the depth-sized copy it replaces.

const module = scannerModule()
if (module === null) throw new Error('the WebAssembly scanner does not load here')

/** The scanner with its window switched off: every push copies all levels below its depth. */
class WholeCopyScanner extends WasmPreflightScanner {
  protected override reach(depth: number): number {
    return depth
  }
}

const options = resolvePreflightOptions({
  maxDepth: WASM_MAX_DEPTH,
  maxNodes: 1e9,
  maxBytes: 2 ** 31,
})

/** Most words a push of `n` bytes may copy: levels depth - n - 1 to depth + n, in and out. */
const bound = (n: number) => 4 + 3 * Math.ceil((n + 1) / 32)

/** A body that stays near its opening depth: objects and arrays three deep, over and over. */
function body(bytes: number): Uint8Array {
  const item = '{"k":[1,[2,{"a":[]}]]},'
  return utf8(item.repeat(Math.ceil(bytes / item.length)))
}

/**
 * Pushes `bytes` in `size`-byte chunks, a byte of whitespace pushed to `other` before each (so
 * the module holds the other scanner's state at every push); returns the most words one round
 * of the two pushes copied, in and out, both scanners counted.
 */
function worstPush(
  scanner: WasmPreflightScanner,
  bytes: Uint8Array,
  size: number,
  other: WasmPreflightScanner,
): number {
  let worst = 0
  const space = utf8(' ')
  for (let at = 0; at < bytes.length; at += size) {
    const before = scanner.copiedWords + other.copiedWords
    other.push(space)
    scanner.push(bytes.subarray(at, at + size))
    worst = Math.max(worst, scanner.copiedWords + other.copiedWords - before)
  }
  return worst
}

/** A scanner open at depth 1, taking whitespace: the other request of {@link worstPush}. */
function bystander(): WasmPreflightScanner {
  const scanner = new WasmPreflightScanner(options, module!)
  scanner.push(utf8('['))
  return scanner
}

/** What the bystander's own state costs a round: one word in, one word out. */
const BYSTANDER = 2

describe('WasmPreflightScanner', () => {
  const depths = [64, 4096, WASM_MAX_DEPTH - 64]
  const sizes = [1, 7, 64, 4096]
  it.each(depths.flatMap((depth) => sizes.map((size) => [depth, size] as const)))(
    'copies at most the words a push can touch at depth %i with %i-byte pushes',
    (depth, size) => {
      const scanner = new WasmPreflightScanner(options, module)
      scanner.push(utf8('['.repeat(depth)))
      const pushes = size === 1 ? 4096 : 256
      const worst = worstPush(scanner, body(pushes * size), size, bystander())
      expect({ depth, size, withinBound: worst <= bound(size) + BYSTANDER }).toEqual({
        depth,
        size,
        withinBound: true,
      })
      // The document still closes and counts its depth: the window copied what was needed.
      scanner.push(utf8(`0${']'.repeat(depth)}`))
      expect(scanner.end().depth).toBe(depth + 5)
    },
  )

  it('copies the depth in words at every push when the window is switched off', () => {
    const depth = WASM_MAX_DEPTH - 64
    const scanner = new WholeCopyScanner(options, module)
    scanner.push(utf8('['.repeat(depth)))
    const worst = worstPush(scanner, body(16), 1, bystander())
    expect(worst).toBeGreaterThanOrEqual(Math.floor(depth / 32))
    expect(worst).toBeGreaterThan(1000 * bound(1))
  })

  it('copies no container word at a push of the scanner whose state the module holds', () => {
    // Pushes of one request in a row (the common case, and a client's tiny pushes) keep the
    // state in the module: no slot or word is saved and restored between them.
    const depth = 4096
    const scanner = new WasmPreflightScanner(options, module)
    scanner.push(utf8('['.repeat(depth)))
    const bytes = body(512)
    const before = scanner.copiedWords
    for (let at = 0; at < bytes.length; at++) scanner.push(bytes.subarray(at, at + 1))
    expect(scanner.copiedWords - before).toBe(0)
    scanner.push(utf8(`0${']'.repeat(depth)}`))
    expect(scanner.end().depth).toBe(depth + 5)
  })

  // Two scanners interleaved push for push, so the module's words outside a window hold the
  // other scanner's bits: the window must never read them.
  const level = fc.constantFrom('[', '{"k":')
  const doc = fc.array(level, { minLength: 1, maxLength: 300 }).map((open) => {
    let text = open.join('')
    text += '0'
    for (let k = open.length - 1; k >= 0; k--) text += open[k] === '[' ? ',[]]' : ',"z":{}}'
    return utf8(text)
  })
  const cuts = fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 8 })

  /** `bytes` cut into pieces of the sizes in `sizes`, cycled. */
  const chunksOf = (bytes: Uint8Array, sizes: readonly number[]) => {
    const out: Uint8Array[] = []
    for (let at = 0, k = 0; at < bytes.length; k++) {
      const size = sizes[k % sizes.length]!
      out.push(bytes.subarray(at, at + size))
      at += size
    }
    return out
  }

  test.prop([doc, doc, cuts, cuts])(
    'gives the outcome of the whole copy and of the JS scanner, two scanners interleaved',
    (a, b, cutA, cutB) => {
      const small = resolvePreflightOptions({ maxDepth: 400 })
      const run = (make: () => Preflight) => {
        const first = make()
        const second = make()
        const x = chunksOf(a, cutA)
        const y = chunksOf(b, cutB)
        // Pushes alternate; a refused scanner keeps its refusal, which `end` rethrows.
        for (let k = 0; k < Math.max(x.length, y.length); k++) {
          try {
            if (k < x.length) first.push(x[k]!)
          } catch {}
          try {
            if (k < y.length) second.push(y[k]!)
          } catch {}
        }
        return [scanOf(first, []), scanOf(second, [])]
      }
      const windowed = run(() => new WasmPreflightScanner(small, module))
      const whole = run(() => new WholeCopyScanner(small, module))
      const js = run(() => new PreflightScanner(small))
      expect(windowed).toEqual(whole)
      expect(windowed).toEqual(js)
    },
  )
})
