import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MUTANTS, PACKAGE_DIR, runNamedMutants } from '../named-mutants.mjs'
import { COPIES_DIR, hashTree } from '../package-copy.mjs'

type Mutant = { name: string; file: string; from: string; to: string }

// The suite itself is replaced by a stand-in that reads the copy: the real one runs the whole
// continuation suite once per mutant, which is `pnpm mutants:named`'s job, not the default run's.
describe('the named-mutant runner', () => {
  it('applies every named mutant to a copy and leaves packages/continuation/src byte-identical', () => {
    const before = hashTree(join(PACKAGE_DIR, 'src'))
    const seen: string[] = []
    const outcome = runNamedMutants({
      runTests: (copy: string, mutant?: Mutant) => {
        expect(copy.startsWith(join(PACKAGE_DIR, COPIES_DIR))).toBe(true)
        if (mutant === undefined) return []
        const text = readFileSync(join(copy, mutant.file), 'utf8')
        // The mutant is in the copy, and the real file does not have it.
        expect(text.includes(mutant.to)).toBe(true)
        expect(readFileSync(join(PACKAGE_DIR, mutant.file), 'utf8').includes(mutant.from)).toBe(
          true,
        )
        seen.push(mutant.name)
        return [`stand-in › ${mutant.name}`]
      },
    })
    expect(outcome.baseline).toEqual([])
    expect(seen).toEqual(MUTANTS.map((m: Mutant) => m.name))
    expect(hashTree(join(PACKAGE_DIR, 'src'))).toBe(before)
    expect(existsSync(join(PACKAGE_DIR, COPIES_DIR))).toBe(false)
  })

  it('restores the copy between mutants, so each is judged alone', () => {
    const outcome = runNamedMutants({
      runTests: (copy: string, mutant?: Mutant) => {
        if (mutant === undefined) return []
        const others = MUTANTS.filter((m: Mutant) => m !== mutant && m.file === mutant.file)
        for (const other of others) {
          if (other.from === mutant.from) continue
          expect(readFileSync(join(copy, other.file), 'utf8').includes(other.from)).toBe(true)
        }
        return ['killed']
      },
    })
    expect(outcome.results.every((r: { failed: string[] }) => r.failed.length === 1)).toBe(true)
  })

  it('refuses a mutant whose text is gone and still removes the copy and spares the source', () => {
    const pkg = mkdtempSync(join(tmpdir(), 'named-mutants-'))
    mkdirSync(join(pkg, 'src'))
    writeFileSync(join(pkg, 'src', 'a.ts'), 'export const a = 1\n')
    const before = hashTree(join(pkg, 'src'))
    expect(() =>
      runNamedMutants({
        packageDir: pkg,
        mutants: [{ name: 'gone', file: 'src/a.ts', from: 'no such text', to: '' }],
        runTests: () => [],
      }),
    ).toThrow('cannot apply "gone": text not found in src/a.ts')
    expect(hashTree(join(pkg, 'src'))).toBe(before)
    expect(existsSync(join(pkg, COPIES_DIR))).toBe(false)
  })

  it('judges no mutant when the unmutated copy already fails', () => {
    const outcome = runNamedMutants({ runTests: () => ['test/a.test.ts › broken'] })
    expect(outcome.baseline).toEqual(['test/a.test.ts › broken'])
    expect(outcome.results).toEqual([])
  })
})
