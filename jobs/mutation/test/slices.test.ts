import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  adoptDirectReport,
  mergeSlices,
  normalizeKey,
  readSlices,
  saveSlice,
  selectFiles,
  sliceSlug,
  staleFiles,
} from '../slices.mjs'

// Small stand-ins for Stryker JSON reports (mutation-testing-report-schema): only the fields
// the merge reads.
function mutant(id: string, status: string, line = 1) {
  return { id, status, mutatorName: 'ConditionalExpression', location: { start: { line } } }
}

function slice(slug: string, date: string, files: Record<string, string[]>, asked?: string[]) {
  return {
    schemaVersion: '2',
    thresholds: { high: 90, low: 80 },
    files: Object.fromEntries(
      Object.entries(files).map(([file, statuses]) => [
        file,
        {
          language: 'typescript',
          source: `// ${slug}`,
          mutants: statuses.map((s, i) => mutant(`${slug}-${i}`, s, i + 1)),
        },
      ]),
    ),
    tollgate: {
      slug,
      date,
      commit: 'abc1234',
      machine: 'test',
      files: asked ?? Object.keys(files),
    },
  }
}

const EXPECTED = ['src/a.ts', 'src/b.ts', 'src/c.ts']

describe('mergeSlices', () => {
  it('takes each file whole from the latest slice that covered it, whatever the input order', () => {
    const old = slice('all', '2026-12-01T10:00:00.000Z', {
      'src/a.ts': ['Survived', 'Killed'],
      'src/b.ts': ['Survived'],
      'src/c.ts': ['Killed'],
    })
    const newer = slice('src-a.ts', '2026-12-01T11:00:00.000Z', {
      'src/a.ts': ['Killed', 'Killed', 'Killed'],
    })
    const merged = mergeSlices([newer, old], EXPECTED)
    // a.ts is newer's three mutants only: none of old's two is kept beside them.
    expect(merged.files['src/a.ts'].mutants.map((m: { id: string }) => m.id)).toEqual([
      'src-a.ts-0',
      'src-a.ts-1',
      'src-a.ts-2',
    ])
    expect(merged.files['src/a.ts'].source).toBe('// src-a.ts')
    expect(merged.files['src/b.ts'].mutants.map((m: { id: string }) => m.id)).toEqual(['all-0'])
    expect(merged.tollgate.sources).toEqual({
      'src/a.ts': 'src-a.ts',
      'src/b.ts': 'all',
      'src/c.ts': 'all',
    })
    expect(merged.tollgate.missing).toEqual([])
    expect(merged.tollgate.slices.map((s: { slug: string }) => s.slug)).toEqual(['all', 'src-a.ts'])
    expect(merged.tollgate.merged).toBe(true)
  })

  it('lists the files of the mutate set that no slice covered', () => {
    const merged = mergeSlices(
      [slice('src-a.ts', '2026-12-01T10:00:00.000Z', { 'src/a.ts': ['Killed'] })],
      EXPECTED,
    )
    expect(merged.tollgate.missing).toEqual(['src/b.ts', 'src/c.ts'])
    expect(Object.keys(merged.files)).toEqual(['src/a.ts'])
  })

  it('counts a file the slice mutated but that has no mutant as covered', () => {
    const merged = mergeSlices(
      [
        slice('all', '2026-12-01T10:00:00.000Z', { 'src/a.ts': ['Killed'], 'src/b.ts': [] }, [
          ...EXPECTED,
        ]),
      ],
      EXPECTED,
    )
    expect(merged.tollgate.missing).toEqual([])
    expect(merged.files['src/c.ts'].mutants).toEqual([])
  })

  it('lets a later whole run replace every earlier slice', () => {
    const merged = mergeSlices(
      [
        slice('src-a.ts', '2026-12-01T09:00:00.000Z', { 'src/a.ts': ['Survived'] }),
        slice('all', '2026-12-01T12:00:00.000Z', {
          'src/a.ts': ['Killed'],
          'src/b.ts': ['Killed'],
          'src/c.ts': ['Killed'],
        }),
      ],
      EXPECTED,
    )
    expect(Object.values(merged.tollgate.sources)).toEqual(['all', 'all', 'all'])
    const first = merged.tollgate.slices.find((s: { slug: string }) => s.slug === 'src-a.ts')
    expect(first.files).toEqual([])
  })

  it('merges test files by id, a later definition replacing an earlier one', () => {
    const a = {
      ...slice('one', '2026-12-01T10:00:00.000Z', { 'src/a.ts': ['Killed'] }),
      testFiles: {
        'test/a.test.ts': {
          tests: [
            { id: '1', name: 'old' },
            { id: '2', name: 'two' },
          ],
        },
      },
    }
    const b = {
      ...slice('two', '2026-12-01T11:00:00.000Z', { 'src/b.ts': ['Killed'] }),
      testFiles: { 'test/a.test.ts': { tests: [{ id: '1', name: 'new' }] } },
    }
    const merged = mergeSlices([b, a], EXPECTED)
    expect(merged.testFiles['test/a.test.ts'].tests).toEqual([
      { id: '1', name: 'new' },
      { id: '2', name: 'two' },
    ])
  })
})

describe('slices on disk', () => {
  it('gives tests ids that mean the same in every slice, killedBy and coveredBy included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mutation-slices-'))
    const report = {
      files: {
        'src/a.ts': {
          language: 'typescript',
          source: '',
          mutants: [{ ...mutant('1', 'Killed'), killedBy: ['0'], coveredBy: ['0', '1'] }],
        },
      },
      testFiles: {
        [join(dir, 'test', 'a.test.ts')]: {
          tests: [
            { id: '0', name: 'refuses x' },
            { id: '1', name: 'admits y' },
          ],
        },
      },
    }
    const saved = JSON.parse(readFileSync(saveSlice(dir, report, { slug: 's' }), 'utf8'))
    expect(saved.testFiles['test/a.test.ts'].tests.map((t: { id: string }) => t.id)).toEqual([
      'test/a.test.ts › refuses x',
      'test/a.test.ts › admits y',
    ])
    expect(saved.files['src/a.ts'].mutants[0].killedBy).toEqual(['test/a.test.ts › refuses x'])
    expect(saved.files['src/a.ts'].mutants[0].coveredBy).toEqual([
      'test/a.test.ts › refuses x',
      'test/a.test.ts › admits y',
    ])
  })

  it('saves a slice with package-relative keys and reads it back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mutation-slices-'))
    const report = slice('x', '2026-12-01T10:00:00.000Z', {
      [join(dir, 'src', 'a.ts')]: ['Killed'],
    })
    const path = saveSlice(dir, report, { slug: 'src-a.ts', date: '2026-12-01T10:00:00.000Z' })
    expect(path).toBe(join(dir, 'reports', 'mutation', 'slices', 'src-a.ts.json'))
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')).files)).toEqual(['src/a.ts'])
    const [read] = readSlices(dir)
    expect(read.tollgate.slug).toBe('src-a.ts')
    expect(read.tollgate.files).toEqual(['src/a.ts'])
  })
})

describe('file selection', () => {
  const all = ['src/index.ts', 'src/a.ts', 'src/x/b.ts', 'test/a.test.ts', 'README.md']

  it('applies Stryker-style patterns, a later negation taking a file out', () => {
    expect(selectFiles(all, ['src/**/*.ts', '!src/index.ts'])).toEqual(['src/a.ts', 'src/x/b.ts'])
    expect(selectFiles(all, ['src/*.ts'])).toEqual(['src/a.ts', 'src/index.ts'])
    expect(selectFiles(all, ['src/?.ts'])).toEqual(['src/a.ts'])
  })

  it('names a slice after its globs, and a run without globs "all"', () => {
    expect(sliceSlug(['src/key-policy.ts'])).toBe('src-key-policy.ts')
    expect(sliceSlug(['src/a.ts', 'src/x/**'])).toBe('src-a.ts-src-x')
    expect(sliceSlug(undefined)).toBe('all')
  })

  it('makes report keys package-relative', () => {
    expect(normalizeKey('/repo/packages/p/src/a.ts', '/repo/packages/p')).toBe('src/a.ts')
    expect(normalizeKey('src\\a.ts', '/repo/packages/p')).toBe('src/a.ts')
  })
})

describe('adoptDirectReport', () => {
  it('keeps a report Stryker wrote outside the driver as a slice, and leaves a merge alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mutation-adopt-'))
    mkdirSync(join(dir, 'reports', 'mutation'), { recursive: true })
    const file = join(dir, 'reports', 'mutation', 'mutation.json')
    writeFileSync(
      file,
      JSON.stringify(slice('x', '2026-12-01T10:00:00.000Z', { 'src/a.ts': ['Killed'] })),
    )
    const slug = adoptDirectReport(dir)
    expect(slug).toMatch(/^direct-\d{4}-/)
    const [adopted] = readSlices(dir)
    expect(adopted.tollgate.slug).toBe(slug)
    expect(Object.keys(adopted.files)).toEqual(['src/a.ts'])
    // The driver's own merge carries `tollgate.merged` and is never taken in again.
    writeFileSync(file, JSON.stringify(mergeSlices(readSlices(dir), ['src/a.ts'])))
    expect(adoptDirectReport(dir)).toBeUndefined()
    expect(readSlices(dir)).toHaveLength(1)
  })
})

describe('staleFiles', () => {
  it('names the files whose source changed after their slice ran, and no other', () => {
    const merged = mergeSlices(
      [slice('one', '2026-12-01T10:00:00Z', { 'src/a.ts': ['Killed'], 'src/b.ts': ['Survived'] })],
      ['src/a.ts', 'src/b.ts', 'src/c.ts'],
    )
    const disk: Record<string, string> = { 'src/a.ts': '// one', 'src/b.ts': '// one, edited' }
    expect(staleFiles(merged, (file) => disk[file])).toEqual(['src/b.ts'])
    // A file removed since the run is stale too; one run with no mutant recorded no text.
    const gone = {
      ...merged,
      files: { ...merged.files, 'src/c.ts': { language: 'typescript', source: '', mutants: [] } },
    }
    expect(staleFiles(gone, (file) => (file === 'src/a.ts' ? '// one' : undefined))).toEqual([
      'src/b.ts',
    ])
  })
})
