import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkDocument, countCitations, listDocuments, type Problem } from '../src/check.js'
import { findCitations } from '../src/citations.js'

// Citations that are known to be broken and owned by someone else, each with the reason. The
// check fails on any broken citation NOT listed here and on any entry listed here that is no
// longer broken (so the list can only shrink). Keys: `<doc> | <cite>` where cite is
// `path › name` for a test and `path` for a file.
const KNOWN_BROKEN: ReadonlyMap<string, string> = new Map<string, string>([])

function key(problem: Problem): string {
  return `${problem.doc} | ${problem.cite}`
}

function fixture(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'repo-checks-'))
  writeFileSync(join(root, 'package.json'), '{}')
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

describe('findCitations', () => {
  it('reads `path` › `name` citations, several names per path, and double-backtick names', () => {
    const found = findCitations(
      [
        'Held by `test/a.test.ts` › `refuses one past the limit` and',
        '| claim | `packages/x/test/b.property.test.ts` › `first` › `second` |',
        'Also `test/c.test.ts` › `` names a `code` span `` here.',
      ].join('\n'),
    )
    expect(found.tests).toEqual([
      { line: 1, path: 'test/a.test.ts', name: 'refuses one past the limit' },
      { line: 2, path: 'packages/x/test/b.property.test.ts', name: 'first' },
      { line: 2, path: 'packages/x/test/b.property.test.ts', name: 'second' },
      { line: 3, path: 'test/c.test.ts', name: 'names a `code` span' },
    ])
    expect(found.malformed).toEqual([])
  })

  it('reports a test path followed by a look-alike separator instead of skipping it', () => {
    const found = findCitations('`test/a.test.ts` > `name` and `test/b.test.ts` :: `other`')
    expect(found.tests).toEqual([])
    expect(found.malformed.map((m) => m.text)).toEqual([
      '`test/a.test.ts` > `name`',
      '`test/b.test.ts` :: `other`',
    ])
  })

  it('reads cited file paths and relative links, and skips code blocks, URLs and non-paths', () => {
    const found = findCitations(
      [
        'See `src/core.ts`, `packages/json-budget/src/codes.ts`, `jobs/load/`, [errors](docs/errors.md#top).',
        'Not paths: `tools/call`, `@tollgate/json-budget`, `application/json`, `JSON.parse`,',
        '`bench/results/<name>.json`, `dist/index.js`, [site](https://example.com/a.md), `node:http`.',
        '```ts',
        "import { x } from './not-checked.js'",
        '`test/in-a-fence.test.ts` › `not checked`',
        '```',
      ].join('\n'),
    )
    expect(found.paths.map((p) => p.path)).toEqual([
      'src/core.ts',
      'packages/json-budget/src/codes.ts',
      'jobs/load/',
      'docs/errors.md',
    ])
    expect(found.tests).toEqual([])
  })
})

describe('checkDocument', () => {
  it('fails a cited test name that no test declares, and a cited file that does not exist', () => {
    const root = fixture({
      'packages/p/package.json': '{}',
      'packages/p/test/a.test.ts': "it('exists', () => {})\n",
      'packages/p/README.md': [
        '`test/a.test.ts` › `exists`',
        '`test/a.test.ts` › `was renamed`',
        '`test/gone.test.ts` › `anything`',
        '`src/missing.ts`',
      ].join('\n'),
    })
    const problems = checkDocument('packages/p/README.md', root)
    expect(problems.map((p) => `${p.line} ${p.cite} (${p.reason})`)).toEqual([
      '3 test/gone.test.ts (no such file or folder)',
      '4 src/missing.ts (no such file or folder)',
      '2 test/a.test.ts › was renamed (no test of that name in the file)',
      '3 test/gone.test.ts › anything (cited test file does not exist)',
    ])
  })

  it('resolves test/… against the package of the README and packages/… against the root', () => {
    const root = fixture({
      'packages/p/package.json': '{}',
      'packages/p/test/a.test.ts': "it('held', () => {})\n",
      'README.md': '`packages/p/test/a.test.ts` › `held` but `test/a.test.ts` › `held`',
      'docs/x.md': '`packages/p/test/a.test.ts` › `held`',
    })
    expect(checkDocument('docs/x.md', root)).toEqual([])
    expect(checkDocument('README.md', root).map((p) => p.cite)).toEqual([
      'test/a.test.ts',
      'test/a.test.ts › held',
    ])
  })
})

describe('the repository documents', () => {
  it('are the root README and SECURITY.md, each package and app README, bench, schemas and docs/', () => {
    const docs = listDocuments()
    expect(docs).toContain('docs/errors.md')
    expect(docs).toContain('docs/evidence.md')
    for (const doc of docs) {
      expect(doc).toMatch(
        /^(README\.md|SECURITY\.md|bench\/README\.md|(packages|apps|tools|jobs)\/[^/]+\/README\.md|schemas\/(.+\/)?README\.md|docs\/.+\.md)$/,
      )
    }
  })

  it('cite only tests and files that exist', () => {
    const problems = listDocuments().flatMap((doc) => checkDocument(doc))
    const unexpected = problems
      .filter((problem) => !KNOWN_BROKEN.has(key(problem)))
      .map((p) => `${p.doc}:${p.line}: ${p.cite} — ${p.reason}`)
    expect(unexpected, 'broken citations (fix the document or the test name)').toEqual([])
    const stale = [...KNOWN_BROKEN.keys()].filter((k) => !problems.some((p) => key(p) === k))
    expect(stale, 'KNOWN_BROKEN entries that now resolve: delete them').toEqual([])
  })

  it('hold at least the citations this check was written for (the check is not vacuous)', () => {
    const errors = countCitations('docs/errors.md')
    expect(errors.tests).toBeGreaterThanOrEqual(1)
    // SECURITY.md holds each control's guarantees to its tests; a change of citation style
    // that this check cannot read would otherwise turn all of them into unchecked prose.
    expect(countCitations('SECURITY.md').tests).toBeGreaterThanOrEqual(50)
  })
})
