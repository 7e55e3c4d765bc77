import { fc, test } from '@fast-check/vitest'
import { describe, expect, it, vi } from 'vitest'
import { createPreflight, preflight } from '../src/index.js'
import { SMALL_DOCUMENT_BYTES } from '../src/preflight.js'
import { PreflightScanner } from '../src/scanner.js'
import { WasmPreflightScanner } from '../src/wasm-scanner.js'
import { scanOf, utf8 } from './helpers/every-scanner.js'

// A one-shot preflight of a document below SMALL_DOCUMENT_BYTES runs on the JS scanner (the
// WebAssembly call and state copy cost more there); at or above it, on the WebAssembly scanner.
// Which scanner ran is watched through their scan methods; the verdicts are held to the
// incremental scanner createPreflight picks, which is the WebAssembly one at these options.

type Scans = { scan(buf: Uint8Array, end: number, base: number): void }

/** The scanner classes whose byte loop ran during `run`. */
function scannersUsed(run: () => unknown): string[] {
  // `scan` is protected: the spies reach it through a structural view of each prototype.
  const wasm = vi.spyOn(WasmPreflightScanner.prototype as unknown as Scans, 'scan')
  const js = vi.spyOn(PreflightScanner.prototype as unknown as Scans, 'scan')
  try {
    run()
  } catch {}
  const used: string[] = []
  if (wasm.mock.calls.length > 0) used.push('wasm')
  if (js.mock.calls.length > 0) used.push('js')
  vi.restoreAllMocks()
  return used
}

describe('preflight', () => {
  it('scans a document below SMALL_DOCUMENT_BYTES with the JS scanner, larger ones with WebAssembly', () => {
    const small = utf8(
      `[${'1,'.repeat((SMALL_DOCUMENT_BYTES - 3) / 2)}1]`.slice(0, SMALL_DOCUMENT_BYTES - 1),
    )
    const doc = (n: number) => utf8(`"${'a'.repeat(n - 2)}"`)
    expect(scannersUsed(() => preflight(doc(SMALL_DOCUMENT_BYTES - 1)))).toEqual(['js'])
    expect(scannersUsed(() => preflight(doc(SMALL_DOCUMENT_BYTES)))).toEqual(['wasm'])
    expect(scannersUsed(() => preflight(small))).toEqual(['js'])
  })

  const json = fc.jsonValue({ maxDepth: 3 }).map((v) => utf8(JSON.stringify(v)))
  const bytes = fc.uint8Array({ maxLength: SMALL_DOCUMENT_BYTES + 8 })
  test.prop([fc.oneof(json, bytes), fc.constantFrom({}, { maxNodes: 3 }, { maxDepth: 1 })], {
    numRuns: 500,
  })('gives small documents the verdict of the WebAssembly scanner', (doc, options) => {
    const oneShot = scanOf({ push: () => {}, end: () => preflight(doc, options) }, [])
    const incremental = scanOf(createPreflight(options), [doc])
    expect(oneShot).toEqual(incremental)
  })
})
