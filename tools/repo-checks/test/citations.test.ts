import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  checkDocument,
  countCitations,
  listCitedTests,
  listDocuments,
  type Problem,
} from '../src/check.js'
import { findCitations } from '../src/citations.js'

// Citations that are known to be broken and owned by someone else, each with the reason. The
// check fails on any broken citation NOT listed here and on any entry listed here that is no
// longer broken (so the list can only shrink). Keys: `<doc> | <cite>` where cite is
// `path › name` for a test and `path` for a file.
const KNOWN_BROKEN: ReadonlyMap<string, string> = new Map<string, string>([])

// A fixture whose citations name tests runs `vitest list` in a child for each package it holds:
// seconds on an idle machine, past the 30 s default on a loaded 2-core CI machine. A deadline,
// not a timing: nothing asserts how long it took.
const LISTS = { timeout: 180_000 }

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
        'A regex in a code span is no link: `/^([0-9](?:\\.[0-9]{1,16})?)$/`, nor `[a](b/c.md)`.',
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
  it(
    'fails a cited test name that no test declares, and a cited file that does not exist',
    LISTS,
    () => {
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
    },
  )

  it(
    'reads test names as vitest lists them: it() names, expanded each(), env-skipped tests',
    LISTS,
    () => {
      const root = fixture({
        'packages/p/package.json': '{}',
        'packages/p/test/a.test.ts': [
          "describe('outer', () => {",
          "  describe('inner', () => { it('nested name', () => {}) })",
          "  it.each([1, 2])('case %i', () => {})",
          "  it.skipIf(true)('skipped by an env condition', () => {})",
          '})',
          "describe.runIf(false)('never runs here', () => { it('still declared', () => {}) })",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: source text of a template literal
          'it(`template ${1 + 1}`, () => {})',
          "it.todo('not written yet')",
        ].join('\n'),
        'packages/r/package.json': '{}',
        'packages/r/vitest.config.mjs':
          "export default { test: { include: ['test/unit/*.test.ts'] } }\n",
        'packages/r/test/other.test.ts': "it('outside the include', () => {})\n",
        'packages/q/package.json': '{}',
        'packages/q/test/bad.test.ts': "throw new Error('fails at import')\n",
        'packages/p/README.md': [
          '`test/a.test.ts` › `nested name` › `case 2` › `skipped by an env condition`',
          '`test/a.test.ts` › `still declared` › `template 2`',
          '`test/a.test.ts` › `case %i` › `case $value`',
          '`test/a.test.ts` › `outer > nested name` › `inner` › `template %s` › `not written yet`',
          '`packages/q/test/bad.test.ts` › `anything`',
          '`packages/r/test/other.test.ts` › `outside the include`',
        ].join('\n'),
      })
      // Not names: the full name, a describe name, a template of a test each() did not produce, a
      // todo. A package whose files vitest cannot load, and a file its config does not collect,
      // are reported as such, not as a missing name.
      expect(checkDocument('packages/p/README.md', root).map((p) => `${p.line} ${p.cite}`)).toEqual(
        [
          '4 test/a.test.ts › outer > nested name',
          '4 test/a.test.ts › inner',
          '4 test/a.test.ts › template %s',
          '4 test/a.test.ts › not written yet',
          '5 packages/q/test/bad.test.ts › anything',
          '6 packages/r/test/other.test.ts › outside the include',
        ],
      )
      expect(
        checkDocument('packages/p/README.md', root)
          .slice(-2)
          .map((p) => p.reason),
      ).toEqual([
        'vitest could not list the tests of packages/q: Error: fails at import',
        'not a test file of its package (its vitest config does not collect it)',
      ])
    },
  )

  it(
    'resolves test/… against the package of the README and packages/… against the root',
    LISTS,
    () => {
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
    },
  )
})

describe('the repository documents', () => {
  // One vitest listing per cited project, two at a time, before the checks read them.
  beforeAll(() => listCitedTests(listDocuments()), 120_000)

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
