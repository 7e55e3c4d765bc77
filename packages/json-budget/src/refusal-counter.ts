import { refusalCodeSpec } from './refusal-codes.js'
import type { RefusalEvent, RefusalHook } from './refusal-event.js'

// A Prometheus series lives for ever per distinct label set, so both labels come from closed
// sets: a code a loaded package registered, or a code no loaded package registered (past 64
// distinct ones, `other`); and the controls, the few fixed names the packages report (past 64
// distinct ones, `other`). The event's `principal` (one value per caller) and `route` are never
// labels: a caller minting keys would mint series without end.
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
const MAX_UNREGISTERED_CODES = 64
const CODE_SHAPE = /^ERR_[A-Z0-9_]{1,60}$/

/**
 * An `onRefusal` hook that counts refusals in a prom-client counter
 * `tollgate_refusals_total{code,control}`, built once with `Counter` (prom-client's, passed
 * in: `refusalCounter(Counter, registry)`) in `registry` (default prom-client's global
 * registry). One hook serves every control of a process; pass it as each control's
 * `onRefusal`. Labels are bounded: a code not of the `ERR_…` shape, unregistered codes past
 * 64 distinct ones, and controls past 64 distinct names count as `other`. Build it once per registry: prom-client refuses a second
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
  const unregistered = new Set<string>()
  const hook: RefusalHook = (event: RefusalEvent) => {
    let code: string = event.code
    if (refusalCodeSpec(code) === undefined) {
      code = CODE_SHAPE.test(code) ? bounded(unregistered, code, MAX_UNREGISTERED_CODES) : OTHER
    }
    counter.inc({ code, control: bounded(controls, event.control, MAX_CONTROLS) })
  }
  return Object.freeze(hook)
}

/** `value` while `seen` holds it or has room for it (then it is added), else `other`. */
function bounded(seen: Set<string>, value: string, max: number): string {
  if (seen.has(value)) return value
  if (seen.size >= max) return OTHER
  seen.add(value)
  return value
}
