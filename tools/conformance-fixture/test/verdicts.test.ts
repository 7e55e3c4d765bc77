// The comparison's judgement over hand-written suite summaries (the format of
// @modelcontextprotocol/conformance 0.2.0-alpha.12's `=== SUMMARY ===`), without running it.
import { describe, expect, it } from 'vitest'
import { compareRuns, parseSummary } from '../verdicts.mjs'

const summary = (lines: string[], unscored: string[] = []) =>
  [
    'Running client scenario ...',
    '=== SUMMARY ===',
    ...lines,
    '',
    'Total: ...',
    '',
    ...(unscored.length > 0 ? ['Not scored for 2026-07-28: ...', ...unscored] : []),
  ].join('\n')

describe('parseSummary', () => {
  it('reads each verdict, its checks and whether the suite scores it', () => {
    const runs = parseSummary(
      summary(
        ['✓ tools-list: 4 passed, 0 failed', '✗ tasks-lifecycle: 1 passed, 8 failed'],
        ['  ✗ tasks-lifecycle (extension)'],
      ),
    )
    expect([...runs.keys()]).toEqual(['tools-list', 'tasks-lifecycle'])
    expect(runs.get('tools-list')).toMatchObject({ pass: true, checks: '4/4', scored: true })
    expect(runs.get('tasks-lifecycle')).toMatchObject({
      pass: false,
      checks: '1/9',
      scored: false,
      category: 'extension',
    })
  })

  it('reads nothing from output without a summary (the run is then a problem)', () => {
    expect(parseSummary('✓ tools-list: 4 passed, 0 failed').size).toBe(0)
  })
})

describe('compareRuns', () => {
  const bare = parseSummary(
    summary(['✓ tools-list: 4 passed, 0 failed', '✗ tools-call-sampling: 1 passed, 1 failed']),
  )
  const reasons = { 'tools-call-sampling': 'needs a session' }

  it('finds no problem when every verdict is the same and every bare failure has a reason', () => {
    const same = parseSummary(
      summary(['✓ tools-list: 3 passed, 0 failed', '✗ tools-call-sampling: 0 passed, 2 failed']),
    )
    const out = compareRuns('2025-11-25', ['bare', 'guarded'], [bare, same], reasons)
    expect(out.differing).toBe(0)
    expect(out.problems).toEqual([])
    expect(out.rows.map((r) => r[4])).toEqual(['same', 'same'])
  })

  it('fails a scenario whose verdict differs, in either direction', () => {
    const flipped = parseSummary(
      summary(['✗ tools-list: 3 passed, 1 failed', '✓ tools-call-sampling: 2 passed, 0 failed']),
    )
    const out = compareRuns('2025-11-25', ['bare', 'guarded'], [bare, flipped], reasons)
    expect(out.differing).toBe(2)
    expect(out.rows.map((r) => r[4])).toEqual(['**differs**', '**differs**'])
  })

  it('fails a scenario missing from one run', () => {
    const partial = parseSummary(summary(['✓ tools-list: 4 passed, 0 failed']))
    const out = compareRuns('2025-11-25', ['bare', 'gateway'], [bare, partial], reasons)
    expect(out.differing).toBe(1)
    expect(out.rows[1]?.[3]).toBe('missing')
  })

  it('fails a scored scenario the bare fixture fails without a listed reason, even when every mode fails it', () => {
    const out = compareRuns('2025-11-25', ['bare', 'guarded'], [bare, bare], {})
    expect(out.differing).toBe(0)
    expect(out.problems).toHaveLength(1)
    expect(out.problems[0]).toContain('tools-call-sampling')
  })

  it('fails a listed reason whose scenario passes bare now', () => {
    const out = compareRuns('2025-11-25', ['bare', 'guarded'], [bare, bare], {
      ...reasons,
      'tools-list': 'stale',
    })
    expect(out.problems).toHaveLength(1)
    expect(out.problems[0]).toContain('tools-list')
  })
})

describe('compareRuns with deliberate deviations', () => {
  const bare = parseSummary(summary(['✓ server-stateless: 30 passed, 0 failed']))
  const guardedFailing = (ids: string[]) => {
    const run = parseSummary(
      summary([`✗ server-stateless: ${30 - ids.length} passed, ${ids.length} failed`]),
    )
    for (const id of ids) run.get('server-stateless')?.failures.push(`${id}: expected …`)
    return run
  }
  const deliberate = {
    'server-stateless': { checks: ['version-error', 'error-id'], reason: 'deliberate: why' },
  }

  it('accepts a difference made of exactly the listed checks, and says why in the row', () => {
    const out = compareRuns(
      '2026-07-28',
      ['bare', 'guarded'],
      [bare, guardedFailing(['error-id', 'version-error'])],
      {},
      deliberate,
    )
    expect(out.problems).toEqual([])
    expect(out.differing).toBe(0)
    expect(out.rows[0]?.slice(4)).toEqual(['differs (deliberate)', 'deliberate: why'])
  })

  it('fails when another check of the same scenario fails too', () => {
    const out = compareRuns(
      '2026-07-28',
      ['bare', 'guarded'],
      [bare, guardedFailing(['error-id', 'version-error', 'tools-list-shape'])],
      {},
      deliberate,
    )
    expect(out.differing).toBe(1)
    expect(out.problems[0]).toContain('differs beyond the listed deliberate checks')
  })

  it('fails when a listed deviation no longer occurs', () => {
    const out = compareRuns('2026-07-28', ['bare', 'guarded'], [bare, bare], {}, deliberate)
    expect(out.problems).toEqual([
      '2026-07-28 server-stateless: the listed deliberate deviation no longer occurs; remove it',
    ])
  })
})
