import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { createPreflight, preflight } from '../src/preflight.js'
import { PreflightScanner } from '../src/scanner.js'
import { instantiateScanner, scannerModule, WASM_MAX_DEPTH } from '../src/wasm-instance.js'
import { WasmPreflightScanner } from '../src/wasm-scanner.js'

// Which scanner createPreflight picks, and the JS fallback when the module cannot run: a
// corrupt or refused module, options the module does not implement, and a real Node without
// WebAssembly (`--jitless`) running the built package.

const packageDir = fileURLToPath(new URL('../', import.meta.url))
const doc = Buffer.from('{"a":[1,2.5e3,"x\\u00e9",true,null],"b":{"c":"中"}}')

describe('WebAssembly scanner selection and fallback', () => {
  it('uses the WebAssembly scanner for the defaults and every policy, the key policies included', () => {
    expect(createPreflight()).toBeInstanceOf(WasmPreflightScanner)
    const options = { maxStringBytes: 10, maxNumberLength: 5, bom: 'strip' as const }
    expect(createPreflight(options)).toBeInstanceOf(WasmPreflightScanner)
    expect(createPreflight({ maxDepth: WASM_MAX_DEPTH })).toBeInstanceOf(WasmPreflightScanner)
    expect(createPreflight({ duplicateKeys: 'refuse' })).toBeInstanceOf(WasmPreflightScanner)
    expect(createPreflight({ protoKeys: 'refuse' })).toBeInstanceOf(WasmPreflightScanner)
  })

  it('uses the JS scanner for a maxDepth past the module container bits, key policies or not', () => {
    expect(createPreflight({ maxDepth: WASM_MAX_DEPTH + 1 })).toBeInstanceOf(PreflightScanner)
    const keys = { maxDepth: WASM_MAX_DEPTH + 1, duplicateKeys: 'refuse' as const }
    expect(createPreflight(keys)).toBeInstanceOf(PreflightScanner)
  })

  it('returns null for a module that does not compile or does not have the contract', () => {
    expect(instantiateScanner(new Uint8Array([0, 0x61, 0x73, 0x6d, 9, 9, 9, 9]))).toBeNull()
    expect(instantiateScanner(new Uint8Array(0))).toBeNull()
    // A valid empty module: no `run`, no memory.
    expect(instantiateScanner(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))).toBeNull()
    expect(scannerModule()).not.toBeNull()
  })

  it('returns null for a module with run, keysReset and memory whose memory does not start at 9 pages', () => {
    // (module (memory (export "memory") P)
    //   (func (export "run") (param i32 i32) (result i32) i32.const 0) (func (export "keysReset") …))
    const moduleWithPages = (pages: number) =>
      new Uint8Array([
        ...[0, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
        ...[1, 7, 1, 0x60, 2, 0x7f, 0x7f, 1, 0x7f],
        ...[3, 3, 2, 0, 0],
        ...[5, 3, 1, 0, pages],
        ...[7, 28, 3, 3, 0x72, 0x75, 0x6e, 0, 0],
        ...[9, 0x6b, 0x65, 0x79, 0x73, 0x52, 0x65, 0x73, 0x65, 0x74, 0, 1],
        ...[6, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 2, 0],
        ...[10, 11, 2, 4, 0, 0x41, 0, 0x0b, 4, 0, 0x41, 0, 0x0b],
      ])
    expect(instantiateScanner(moduleWithPages(9))).not.toBeNull()
    for (const pages of [1, 4, 8, 10]) expect(instantiateScanner(moduleWithPages(pages))).toBeNull()
  })

  it('falls back to the JS scanner when the built module fails to compile', async () => {
    vi.resetModules()
    vi.doMock('../src/wasm-bytes.js', () => ({ SCANNER_WASM: 'AGFzbQkJCQk=' }))
    try {
      const fresh = await import('../src/preflight.js')
      const scanners = await import('../src/scanner.js')
      expect(fresh.createPreflight()).toBeInstanceOf(scanners.PreflightScanner)
      expect(fresh.preflight(doc)).toEqual(preflight(doc))
      expect(() => fresh.preflight(Buffer.from('[1,]'))).toThrow(
        expect.objectContaining({ code: 'ERR_JSON_SYNTAX', offset: 3 }),
      )
    } finally {
      vi.doUnmock('../src/wasm-bytes.js')
      vi.resetModules()
    }
  })

  it('admits and refuses alike in a Node without WebAssembly (--jitless, the built package)', () => {
    // The child loads dist: `pnpm --filter @tollgate/lexical-preflight build` first.
    const script = `
      const { preflight } = require('@tollgate/lexical-preflight')
      const out = { wasm: typeof WebAssembly, admitted: preflight(Buffer.from(${JSON.stringify(doc.toString())})) }
      for (const [text, options] of [['[1,]', {}], ['[[[', { maxDepth: 2 }], ['"abcdef"', { maxStringBytes: 3 }]]) {
        try { preflight(Buffer.from(text), options) } catch (e) { out[text] = [e.code, e.offset, e.limit] }
      }
      console.log(JSON.stringify(out))`
    const printed = execFileSync(process.execPath, ['--jitless', '-e', script], {
      cwd: packageDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    expect(JSON.parse(printed)).toEqual({
      wasm: 'undefined',
      admitted: preflight(doc),
      '[1,]': ['ERR_JSON_SYNTAX', 3, null],
      '[[[': ['ERR_JSON_TOO_DEEP', 2, 2],
      '"abcdef"': ['ERR_JSON_STRING_TOO_LONG', 4, 3],
    })
  })
})
