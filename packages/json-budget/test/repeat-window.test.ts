import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createRepeatWindow, type RepeatReport } from '../src/index.js'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

function collect() {
  const seen: RepeatReport<number>[] = []
  return { seen, report: (r: RepeatReport<number>) => seen.push(r) }
}

describe('createRepeatWindow', () => {
  it('reports the first of a kind at once and 4,999 repeats as one closing report when the window ends', () => {
    const { seen, report } = collect()
    const window = createRepeatWindow(report, { windowMs: 1_000 })
    for (let i = 0; i < 5_000; i++) window.note('syntax', i)
    expect(seen).toEqual([{ event: 0, repeated: undefined, windowMs: 1_000, overflow: false }])
    vi.advanceTimersByTime(1_000)
    expect(seen.slice(1)).toEqual([{ event: 0, repeated: 4_999, windowMs: 1_000, overflow: false }])
    // A new window starts with a new first report.
    window.note('syntax', 7)
    expect(seen.at(-1)).toMatchObject({ event: 7, repeated: undefined })
  })

  it('writes no closing report for a kind seen once, and counts kinds apart', () => {
    const { seen, report } = collect()
    const window = createRepeatWindow(report, { windowMs: 1_000 })
    window.note('a', 1)
    window.note('b', 2)
    window.note('b', 3)
    vi.advanceTimersByTime(1_000)
    expect(seen.map((r) => [r.event, r.repeated])).toEqual([
      [1, undefined],
      [2, undefined],
      [2, 1],
    ])
  })

  it('holds at most maxKinds kinds, then shares one overflow count', () => {
    const { seen, report } = collect()
    const window = createRepeatWindow(report, { windowMs: 1_000, maxKinds: 2 })
    for (let i = 0; i < 1_000; i++) window.note(`kind-${i}`, i)
    window.flush()
    expect(seen.map((r) => [r.event, r.repeated, r.overflow])).toEqual([
      [0, undefined, false],
      [1, undefined, false],
      [2, undefined, true],
      [2, 997, true],
    ])
  })

  it('reports every pending count at flush, once', () => {
    const { seen, report } = collect()
    const window = createRepeatWindow(report, { windowMs: 60_000 })
    window.note('a', 1)
    window.note('a', 2)
    window.flush()
    window.flush()
    vi.advanceTimersByTime(60_000)
    expect(seen.map((r) => r.repeated)).toEqual([undefined, 1])
  })

  it('reports every event with windowMs 0 (aggregation off)', () => {
    const { seen, report } = collect()
    const window = createRepeatWindow(report, { windowMs: 0 })
    for (let i = 0; i < 5; i++) window.note('a', i)
    expect(seen).toHaveLength(5)
  })

  it('refuses a negative window and a zero maxKinds at construction', () => {
    expect(() => createRepeatWindow(() => {}, { windowMs: -1 })).toThrow(/windowMs/)
    expect(() => createRepeatWindow(() => {}, { maxKinds: 0 })).toThrow(/maxKinds/)
  })
})
