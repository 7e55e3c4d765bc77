import {
  defineOptions,
  functionOption,
  integerOption,
  type OptionsOf,
  option,
} from '@tollgate/json-budget'
import { pino } from 'pino'

// Audit lines are for operators, and they outlive the request: nothing a caller chose may be
// written in them. Only scalar fields are taken; a field name must look like an identifier the
// gateway itself chose (a caller's argument key used as a field name is dropped and counted);
// a string value longer than 128 characters, or holding anything but printable ASCII, is
// written as its length. A flood of one refusal costs one line per window, not one per
// request: a line identical to one written within the window is counted, and the count is
// written as one `repeated` line when the window ends.

/**
 * The options of {@link auditLog}, declared once: the input type, the defaults and the checks
 * come from it.
 */
export const AUDIT_OPTIONS = defineOptions('auditLog', {
  windowMs: option({
    default: 10_000,
    check: integerOption(true),
    doc: 'milliseconds during which repeats of an identical line (same event, same fields) are counted instead of written; `0` writes every line',
  }),
  maxKeys: option({
    default: 1_000,
    check: integerOption(),
    doc: 'most distinct lines counted at once; past it the oldest count is written early',
  }),
  now: option<() => number>({
    default: Date.now,
    check: functionOption,
    shown: '`Date.now`',
    doc: 'the clock, in milliseconds',
  }),
})

/** Options of {@link auditLog} (see {@link AUDIT_OPTIONS}); every field optional. */
export type AuditOptions = OptionsOf<typeof AUDIT_OPTIONS.rows>

/** An audit field value: scalars only (no object can smuggle arguments into a line). */
export type AuditValue = string | number | boolean | undefined

/** The audit sink. */
export interface Audit {
  /**
   * Writes (or counts, see the `windowMs` option) one line: `event` = `name`, then the
   * fields (`reason`, `code`, `principal` as a hashed key, `route`, `tool`, …), bounded as
   * described above. Never pass argument values or caller-chosen key names.
   */
  event(name: string, fields: Record<string, AuditValue>): void
  /** Writes the counts of every window that has ended (all of them with `all: true`). */
  flush(all?: boolean): void
  /** Writes every pending count and stops the window timer. */
  close(): void
}

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,31}$/
const RESERVED = new Set(['event', 'level', 'time', 'repeated', 'windowMs', 'droppedFields', 'msg'])
const PRINTABLE = /^[\x20-\x7e]*$/
const MAX_STRING = 128

interface Window {
  readonly name: string
  readonly fields: Record<string, string | number | boolean>
  readonly start: number
  count: number
}

/**
 * Builds the audit sink: pino JSON lines on `destination` (default: standard error, written
 * synchronously, so stdout stays JSON-RPC only in stdio mode).
 * @throws TypeError on an unknown option, a `windowMs` that is not a safe integer ≥ 0, a
 *   `maxKeys` that is not a positive safe integer, or a `now` that is not a function.
 */
export function auditLog(destination?: NodeJS.WritableStream, options?: AuditOptions): Audit {
  const { windowMs, maxKeys, now } = AUDIT_OPTIONS.resolve(options)
  const logger = pino(
    {
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ fd: 2, sync: true }),
  )
  const open = new Map<string, Window>()

  const writeCount = (w: Window) => {
    if (w.count > 0) logger.info({ ...w.fields, event: w.name, repeated: w.count, windowMs })
  }
  const flush = (all = false) => {
    const t = now()
    for (const [key, w] of open) {
      if (all || t - w.start >= windowMs) {
        open.delete(key)
        writeCount(w)
      }
    }
  }
  const timer = windowMs > 0 ? setInterval(() => flush(), windowMs) : undefined
  // A pending count must not keep the process alive.
  timer?.unref()

  return Object.freeze({
    event(name: string, fields: Record<string, AuditValue>): void {
      const event = bounded(String(name))
      const { clean, dropped } = sanitize(fields)
      const line = dropped > 0 ? { ...clean, droppedFields: dropped } : clean
      if (windowMs === 0) {
        logger.info({ ...line, event })
        return
      }
      const key = `${event}\u0000${JSON.stringify(Object.entries(line).sort(byKey))}`
      const t = now()
      const w = open.get(key)
      if (w !== undefined && t - w.start < windowMs) {
        w.count++
        return
      }
      if (w !== undefined) {
        open.delete(key)
        writeCount(w)
      }
      logger.info({ ...line, event })
      open.set(key, { name: event, fields: line, start: t, count: 0 })
      if (open.size > maxKeys) {
        const [oldestKey, oldest] = open.entries().next().value as [string, Window]
        open.delete(oldestKey)
        writeCount(oldest)
      }
    },
    flush,
    close(): void {
      if (timer !== undefined) clearInterval(timer)
      flush(true)
    },
  })
}

function byKey(a: [string, unknown], b: [string, unknown]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0
}

function bounded(value: string): string {
  return value.length > MAX_STRING || !PRINTABLE.test(value) ? `<${value.length} chars>` : value
}

function sanitize(fields: Record<string, AuditValue>): {
  clean: Record<string, string | number | boolean>
  dropped: number
} {
  const clean: Record<string, string | number | boolean> = {}
  let dropped = 0
  if (typeof fields !== 'object' || fields === null) return { clean, dropped }
  for (const name of Object.keys(fields)) {
    const value = fields[name]
    if (value === undefined) continue
    if (!FIELD_NAME.test(name) || RESERVED.has(name)) {
      dropped++
      continue
    }
    if (typeof value === 'string') clean[name] = bounded(value)
    else if (typeof value === 'boolean') clean[name] = value
    else if (typeof value === 'number' && Number.isFinite(value)) clean[name] = value
    else dropped++
  }
  return { clean, dropped }
}
