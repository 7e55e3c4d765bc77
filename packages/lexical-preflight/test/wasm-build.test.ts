import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs build script, no type declarations
import { bytesModule, compileScanner } from '../scripts/build-wasm.mjs'

// src/wasm-bytes.ts is committed (vitest on src and a fresh clone load it without a compile
// step); this rebuilds it from assembly/scanner.ts with the pinned compiler and compares.
describe('WebAssembly scanner build', () => {
  it('src/wasm-bytes.ts is the module built from assembly/scanner.ts, byte for byte', async () => {
    const committed = readFileSync(new URL('../src/wasm-bytes.ts', import.meta.url), 'utf8')
    expect(committed).toBe(bytesModule(await compileScanner()))
  }, 60_000)
})
