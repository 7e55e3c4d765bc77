import { defineOptions, type OptionsOf, option, type ResolvedOf } from './option-table.js'
import { integerOption } from './option-validators.js'

// A caller that can repeat a refusal for free can also make the server write one log line per
// refusal: 5,000 refused calls were 5,000 audit lines (1.5 MiB) in 0.6 s. A repeat window turns
// a burst into a bounded number of lines: the first of a kind is reported at once, its repeats
// within the window are counted, and one closing report carries the count. The kinds held at
// once are capped, so a caller that varies what it sends cannot grow the table either.

/**
 * The options of a repeat window ({@link createRepeatWindow}), declared once: the README's
 * options table is `REPEAT_WINDOW_OPTIONS.markdown()`.
 */
export const REPEAT_WINDOW_OPTIONS = defineOptions('repeatWindow', {
  windowMs: option({
    default: 10_000,
    check: integerOption(true),
    doc: 'ms during which repeats of a reported kind are counted instead of reported; `0` reports every event',
  }),
  maxKinds: option({
    default: 256,
    check: integerOption(),
    doc: 'most kinds counted at once; past it, new kinds share one overflow count',
  }),
})

/** Options of {@link createRepeatWindow} (see {@link REPEAT_WINDOW_OPTIONS}). */
export type RepeatWindowOptions = OptionsOf<typeof REPEAT_WINDOW_OPTIONS.rows>

/** What a repeat window reports: an event, and for a closing report its repeat count. */
export interface RepeatReport<E> {
  /** The first event of its kind in the window (for an overflow count, the first of them). */
  readonly event: E
  /** `undefined` for the first report; for the closing one, how many repeats were counted. */
  readonly repeated: number | undefined
  /** The window length, in ms. */
  readonly windowMs: number
  /** True when the count is the shared overflow count (more kinds than `maxKinds`). */
  readonly overflow: boolean
}

/** A repeat window: one object per sink, holding its counts. */
export interface RepeatWindow<E> {
  /** The resolved options. */
  readonly options: ResolvedOf<typeof REPEAT_WINDOW_OPTIONS.rows>
  /**
   * Reports `event` now if it is the first of `kind` in the window (or the window is `0`),
   * else counts it. `kind` must be built from bounded, server-chosen facts (a code, a reason,
   * a published tool name), never from caller bytes.
   */
  note(kind: string, event: E): void
  /** Reports every pending count now and empties the window (at close or shutdown). */
  flush(): void
}

interface Open<E> {
  readonly event: E
  readonly overflow: boolean
  count: number
  readonly timer: ReturnType<typeof setTimeout>
}

const OVERFLOW = '\u0000overflow'

/**
 * Builds a repeat window over `report`: per window, the first event of a kind is reported at
 * once and its repeats are counted into one closing report (`repeated: n`) when the window of
 * that kind ends; a kind with no repeat has no closing report. At most `maxKinds` kinds are
 * counted at once, then new kinds share one overflow count. Timers do not keep the process
 * alive; call {@link RepeatWindow.flush} at close so no count is lost. A `report` that throws
 * is the caller's to catch: the window's state is already updated.
 * @throws TypeError on a bad option (`windowMs` not a safe integer ≥ 0, `maxKinds` < 1).
 */
export function createRepeatWindow<E>(
  report: (r: RepeatReport<E>) => void,
  options?: RepeatWindowOptions,
): RepeatWindow<E> {
  const resolved = REPEAT_WINDOW_OPTIONS.resolve(options)
  const { windowMs, maxKinds } = resolved
  const open = new Map<string, Open<E>>()

  const close = (key: string, entry: Open<E>): void => {
    if (open.get(key) !== entry) return
    open.delete(key)
    clearTimeout(entry.timer)
    if (entry.count > 0) {
      report({ event: entry.event, repeated: entry.count, windowMs, overflow: entry.overflow })
    }
  }

  return Object.freeze({
    options: resolved,
    note(kind: string, event: E): void {
      if (windowMs === 0) {
        report({ event, repeated: undefined, windowMs, overflow: false })
        return
      }
      let key = kind
      if (!open.has(key) && open.size >= maxKinds) key = OVERFLOW
      const entry = open.get(key)
      if (entry !== undefined) {
        entry.count++
        return
      }
      const overflow = key === OVERFLOW
      const timer = setTimeout(() => close(key, fresh), windowMs)
      // A pending count must not keep the process alive; flush() writes it at close.
      timer.unref?.()
      const fresh: Open<E> = { event, overflow, count: 0, timer }
      open.set(key, fresh)
      report({ event, repeated: undefined, windowMs, overflow })
    },
    flush(): void {
      for (const [key, entry] of [...open]) close(key, entry)
    },
  })
}
