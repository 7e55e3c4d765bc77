import { describe, expect, it } from 'vitest'
import { DETAILS_PAGE, detailsPage, SUMMARY_PAGE, summaryPage } from '../pages.mjs'

// One package's merged report as run.mjs hands it over: counts, one slice, one mutant killed
// on recheck and one survivor.
const results = [
  {
    pkg: { dir: 'p', name: '@tollgate/p', script: 'stryker run' },
    run: undefined,
    expected: ['src/a.ts'],
    report: {
      counts: { Killed: 9, Survived: 1 },
      score: 90,
      strykerScore: 80,
      coveredScore: 90,
      rechecked: 2,
      recheckKilled: 1,
      recheckKills: [
        {
          file: 'src/a.ts',
          line: 3,
          mutator: 'EqualityOperator',
          replacement: 'a <= b',
          outcome: 'killed',
          test: 'refuses one more',
        },
      ],
      survivors: [{ status: 'Survived', file: 'src/a.ts', line: 7, mutator: 'BlockStatement' }],
      stale: [],
      meta: {
        missing: [],
        slices: [
          {
            slug: 'all',
            files: ['src/a.ts'],
            date: '2026-12-01',
            commit: 'abc1234',
            machine: 'm',
            minutes: 1,
          },
        ],
      },
    },
  },
]
const header = { goal: 90, date: '2026-12-04T00:00:00Z', commit: 'abc1234', machine: 'm' }

describe('summaryPage', () => {
  it('writes the score table with the date, commit and machine, and where the records live', () => {
    const page = summaryPage(results, header)
    expect(page).toContain('Written 2026-12-04T00:00:00Z at commit abc1234 on m.')
    expect(page).toContain(
      '| @tollgate/p | 90.0% | 80.0% | 90.0% | 9 (1 of 2 re-checked) | 0 | 1 |',
    )
    expect(page).toContain(DETAILS_PAGE)
    expect(page).toContain('jobs/mutation/records/')
  })

  it('leaves out the slices, the recheck kills and the survivors', () => {
    const page = summaryPage(results, header)
    expect(page).not.toContain('src/a.ts')
    expect(page).not.toContain('refuses one more')
  })
})

describe('detailsPage', () => {
  it('adds each slice, each mutant killed on recheck with its test, and each survivor by line', () => {
    const page = detailsPage(results, header)
    expect(page.startsWith(summaryPage(results, header))).toBe(true)
    expect(page).toContain('| `all` | `packages/p/src/a.ts` | 2026-12-01 | abc1234 | m | 1 |')
    expect(page).toContain('refuses one more')
    expect(page).toContain('| `packages/p/src/a.ts` | 1 | 0 | 7 (BlockStatement) |')
  })

  it('is written outside docs/, under an ignored reports/ folder, and the summary to docs/', () => {
    expect(SUMMARY_PAGE).toBe('docs/mutation.md')
    expect(DETAILS_PAGE.startsWith('reports/')).toBe(true)
  })
})
