import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  applyMutant,
  DEFAULT_FILES,
  FILES,
  KEY_TESTS,
  mutantsOf,
  PACKAGE_DIR,
  permutation,
  summarize,
  TESTS_BY_FILE,
  wilson,
} from '../assembly-mutants.mjs'

type Mutant = {
  id: string
  operator: string
  original: string
  replacement: string
  from: number
  to: number
}

// The generator alone (no compile, no test run: that is `pnpm mutants:wasm`'s job).
describe('the AssemblyScript mutant generator', () => {
  it('gives each mutant as one change at one site, with a unique id, the same on every call', () => {
    for (const file of FILES) {
      const text = readFileSync(join(PACKAGE_DIR, file), 'utf8')
      const mutants: Mutant[] = mutantsOf(file, text)
      expect(mutants.length).toBeGreaterThan(50)
      expect(new Set(mutants.map((m) => m.id)).size).toBe(mutants.length)
      expect(mutantsOf(file, text)).toEqual(mutants)
      for (const m of mutants) {
        const next = applyMutant(text, m)
        expect(next).not.toBe(text)
        expect(next.slice(0, m.from)).toBe(text.slice(0, m.from))
        expect(next.slice(m.from + m.replacement.length)).toBe(text.slice(m.to))
      }
    }
  })

  it('judges every mutated file by a test set of its own, the key kernel by the key-policy tests', () => {
    expect(Object.keys(TESTS_BY_FILE).sort()).toEqual([...FILES].sort())
    for (const file of FILES)
      expect(TESTS_BY_FILE[file as keyof typeof TESTS_BY_FILE].length).toBeGreaterThan(0)
    expect(TESTS_BY_FILE['assembly/keys.ts']).toBe(KEY_TESTS)
    expect(KEY_TESTS[0]).toBe('test/wasm-keys.differential.test.ts')
    // The default set is the one earlier samples were drawn from, so a seed names the same sample.
    expect(DEFAULT_FILES).toEqual(['assembly/scanner.ts', 'assembly/bytes.ts'])
  })

  it('skips comments and strings, casts and type arguments, and the named constants', () => {
    const text = [
      'const K_STATE = 3',
      '// if (a < b) return fail(E_SYNTAX, 1)',
      "const s = 'x < 2'",
      'function f(i: i32): i32 {',
      '  if (load<u8>(<usize>i) < 4) return fail(E_SYNTAX, i)',
      '  return 0',
      '}',
    ].join('\n')
    const got = mutantsOf('x.ts', text).map(
      (m: Mutant) => `${m.operator} ${m.original}→${m.replacement}`,
    )
    expect(got).toEqual([
      'COND load<u8>(<usize>i) < 4→true',
      'COND load<u8>(<usize>i) < 4→false',
      'ROR <→<=',
      'LIT 4→5',
      'LIT 4→3',
      'RET return fail(E_SYNTAX, i)→{}',
      'LIT 0→1',
    ])
  })

  it('samples a seeded permutation, so a larger sample with the same seed extends a smaller one', () => {
    const order = permutation(1000, 7)
    expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, k) => k))
    expect(permutation(1000, 7)).toEqual(order)
    expect(permutation(1000, 8)).not.toEqual(order)
  })

  it('scores killed and time-outs over killed and survived, without compile errors or equivalents', () => {
    const rows = ['Killed', 'Killed', 'Timeout', 'Survived', 'CompileError', 'Equivalent'].map(
      (status) => ({ status }),
    )
    const s = summarize(rows)
    expect(s).toMatchObject({
      killed: 3,
      survived: 1,
      compileErrors: 1,
      equivalent: 1,
      score: 0.75,
    })
    const [lo, hi] = wilson(3, 4)
    expect(lo).toBeLessThan(0.75)
    expect(hi).toBeGreaterThan(0.75)
    // 95% Wilson interval of 90/100: 82.6%–94.5%.
    expect(wilson(90, 100).map((x: number) => Math.round(x * 1000))).toEqual([826, 945])
  })
})
