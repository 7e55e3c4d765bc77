import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { applyMutant, mutantKey, readRechecks, recheckFor, sha256 } from '../recheck.mjs'

const at = (sl: number, sc: number, el: number, ec: number) => ({
  start: { line: sl, column: sc },
  end: { line: el, column: ec },
})

describe('applyMutant', () => {
  // Stryker's locations: 1-based lines and columns, the end column exclusive. This one is
  // copied from a real report (mcp-transport, sdk-json-retention.ts:94, BooleanLiteral).
  it('replaces exactly the text a Stryker location spans', () => {
    const source = "x\n  if (typeof t !== 'object' || t === null) return false\ny"
    const out = applyMutant(source, at(2, 51, 2, 56), 'true')
    expect(out).toBe("x\n  if (typeof t !== 'object' || t === null) return true\ny")
  })

  it('replaces a span across lines and leaves the rest byte for byte', () => {
    const source = 'a {\n  b()\n} c'
    expect(applyMutant(source, at(1, 3, 3, 2), '{}')).toBe('a {} c')
    expect(applyMutant(source, at(1, 1, 1, 1), '')).toBe(source)
  })

  it('refuses a location outside the source rather than splice somewhere else', () => {
    expect(() => applyMutant('ab', at(1, 2, 1, 9), '')).toThrow(/out of range/)
    expect(() => applyMutant('ab\ncd', at(2, 2, 1, 1), '')).toThrow(/out of range/)
  })
})

describe('recheck verdicts', () => {
  const mutant = {
    mutatorName: 'EqualityOperator',
    replacement: 'a <= b',
    location: at(3, 5, 3, 11),
  }

  it('keys a verdict by file, location, mutator and replacement', () => {
    const key = mutantKey('src/a.ts', mutant)
    expect(key).toBe('src/a.ts:3:5-3:11:EqualityOperator:a <= b')
    expect(mutantKey('src/b.ts', mutant)).not.toBe(key)
    expect(mutantKey('src/a.ts', { ...mutant, replacement: 'a >= b' })).not.toBe(key)
  })

  it('uses a verdict only for the source it was measured on', () => {
    const source = 'const a = 1\n'
    const verdicts = {
      [mutantKey('src/a.ts', mutant)]: { sourceHash: sha256(source), outcome: 'killed' },
    }
    expect(recheckFor(verdicts, 'src/a.ts', source, mutant)?.outcome).toBe('killed')
    expect(recheckFor(verdicts, 'src/a.ts', `${source} `, mutant)).toBeUndefined()
    expect(recheckFor(verdicts, 'src/b.ts', source, mutant)).toBeUndefined()
  })

  it('reads the verdicts a package has on disk, and none when it has none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'recheck-test-'))
    expect(readRechecks(dir)).toEqual({})
    mkdirSync(join(dir, 'reports', 'mutation'), { recursive: true })
    writeFileSync(
      join(dir, 'reports', 'mutation', 'recheck.json'),
      JSON.stringify({ package: 'p', verdicts: { k: { outcome: 'survived' } } }),
    )
    expect(readRechecks(dir)).toEqual({ k: { outcome: 'survived' } })
  })
})
