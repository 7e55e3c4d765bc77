import { refusalCodeSpec } from './refusal-codes.js'
import type { RefusalEvent, RefusalHook } from './refusal-event.js'

// A Prometheus series lives for ever per distinct label set, so both labels come from closed
// sets: a code is one a loaded package registered (anything else counts as `other`), and the
// controls are the few fixed names the packages report (past 64 distinct ones, `other`).
// prom-client is not a dependency: its `Counter` constructor is passed in and typed by the
// little used of it, so the packages that report refusals stay free of it.

/** The metric {@link refusalCounter} registers. */
export const REFUSAL_COUNTER_NAME = 'tollgate_refusals_total'

/** The labels of {@link REFUSAL_COUNTER_NAME}. */
export type RefusalCounterLabel = 'code' | 'control'

/** What {@link refusalCounter} asks of prom-client's `Counter` (prom-client 15 satisfies it). */
export type CounterConstructorLike<R> = new (configuration: {
  name: string
  help: string
  labelNames: readonly RefusalCounterLabel[]
  registers?: R[]
}) => { inc(labels: Partial<Record<RefusalCounterLabel, string>>): void }

const OTHER = 'other'
const MAX_CONTROLS = 64

/**
 * An `onRefusal` hook that counts refusals in a prom-client counter
 * `tollgate_refusals_total{code,control}`, built once with `Counter` (prom-client's, passed
 * in: `refusalCounter(Counter, registry)`) in `registry` (default prom-client's global
 * registry). One hook serves every control of a process; pass it as each control's
 * `onRefusal`. Labels are bounded: a code no loaded package registered, and controls past 64
 * distinct names, count as `other`. Build it once per registry: prom-client refuses a second
 * metric of the same name in one registry.
 * @throws what prom-client's `Counter` throws (a name already registered in `registry`);
 *   TypeError when `Counter` is not a constructor.
 */
export function refusalCounter<R>(Counter: CounterConstructorLike<R>, registry?: R): RefusalHook {
  if (typeof Counter !== 'function') {
    throw new TypeError("refusalCounter: Counter must be prom-client's Counter constructor")
  }
  const counter = new Counter({
    name: REFUSAL_COUNTER_NAME,
    help: 'Requests and messages refused by a tollgate control, by refusal code and control',
    labelNames: ['code', 'control'],
    ...(registry === undefined ? {} : { registers: [registry] }),
  })
  const controls = new Set<string>()
  const hook: RefusalHook = (event: RefusalEvent) => {
    const code = refusalCodeSpec(event.code) === undefined ? OTHER : event.code
    let control = event.control
    if (!controls.has(control)) {
      if (controls.size >= MAX_CONTROLS) control = OTHER
      else controls.add(control)
    }
    counter.inc({ code, control })
  }
  return Object.freeze(hook)
}
