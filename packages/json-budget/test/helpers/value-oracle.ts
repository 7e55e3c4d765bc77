// The independent oracle of the charging differentials: the counting walk of
// @tollgate/test-kit/json-count for nodes and depth, and `Buffer.byteLength(JSON.stringify(v))`
// for bytes, which is their definition. None of the charger's shortcuts (unordered walk, key
// memo, chunked strings, batched numbers) is repeated here.
import { Buffer } from 'node:buffer'
import { countJson } from '@tollgate/test-kit/json-count'
import { expect } from 'vitest'
import type { AdmissionCode } from '../../src/index.js'
import type { ResolvedJsonLimits } from '../../src/limits.js'

/** What a charge must end in: its totals, or one of the refusals in `broken` (code -> limit). */
export type ValueJudgement =
  | { readonly ok: true; readonly nodes: number; readonly depth: number; readonly bytes: number }
  | {
      readonly ok: false
      readonly broken: ReadonlyMap<AdmissionCode, number | undefined>
      /** The value's totals, when it is JSON: what a limit refusal's `observed` cannot pass. */
      readonly totals: {
        readonly nodes: number
        readonly depth: number
        readonly bytes: number
      } | null
    }

/** A copy of `value` with every `Set` written as the array of its members. */
function lowered(value: unknown): unknown {
  if (value instanceof Set) return [...value].map(lowered)
  if (Array.isArray(value)) return value.map(lowered)
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(value)) out[k] = lowered((value as Record<string, unknown>)[k])
    return out
  }
  return value
}

/** The totals of a JSON value, from the definitions; null when it is not JSON. */
export function totalsOf(value: unknown, setsAsArrays = false) {
  const count = countJson(value, { setsAsArrays })
  if (count === null) return null
  const bytes = Buffer.byteLength(JSON.stringify(setsAsArrays ? lowered(value) : value))
  return { nodes: count.nodes, depth: count.depth, bytes }
}

const LIMIT_CODES = ['ERR_JSON_TOO_MANY_NODES', 'ERR_JSON_TOO_DEEP', 'ERR_JSON_TOO_LARGE'] as const

function limitOf(code: (typeof LIMIT_CODES)[number], limits: ResolvedJsonLimits): number {
  if (code === 'ERR_JSON_TOO_MANY_NODES') return limits.maxNodes
  if (code === 'ERR_JSON_TOO_DEEP') return limits.maxDepth
  return limits.maxBytes
}

/** Judges `value` under resolved limits from its totals alone. */
export function judgeValue(
  value: unknown,
  limits: ResolvedJsonLimits,
  setsAsArrays = false,
): ValueJudgement {
  const totals = totalsOf(value, setsAsArrays)
  const broken = new Map<AdmissionCode, number | undefined>()
  if (totals === null) {
    // A value that is not JSON: any limit may be crossed before it is met.
    broken.set('ERR_JSON_UNSUPPORTED_VALUE', undefined)
    for (const code of LIMIT_CODES) broken.set(code, limitOf(code, limits))
    return { ok: false, broken, totals: null }
  }
  if (totals.nodes > limits.maxNodes) broken.set('ERR_JSON_TOO_MANY_NODES', limits.maxNodes)
  if (totals.depth > limits.maxDepth) broken.set('ERR_JSON_TOO_DEEP', limits.maxDepth)
  if (totals.bytes > limits.maxBytes) broken.set('ERR_JSON_TOO_LARGE', limits.maxBytes)
  return broken.size > 0 ? { ok: false, broken, totals } : { ok: true, ...totals }
}

/** The outcome of a charge: its totals, or the refusal's code, limit, observed and path. */
export type ChargeOutcome =
  | { admitted: { nodes: number; depth: number; bytes: number } }
  | { refused: { code: string; limit?: number; observed?: number; path?: string } }

/**
 * Checks `got` against the judgement: admitted with exactly the totals, or refused with a code
 * the totals show broken, its limit, an `observed` past the limit and not past the total, and a
 * path that names a place in `value` (when no segment of it was elided for its length or
 * characters).
 */
export function expectJudged(got: ChargeOutcome, want: ValueJudgement, value: unknown) {
  if (want.ok) {
    expect(got).toEqual({ admitted: { nodes: want.nodes, depth: want.depth, bytes: want.bytes } })
    return
  }
  expect(got).toHaveProperty('refused')
  if (!('refused' in got)) return
  const { code, limit, observed, path } = got.refused
  expect([...want.broken.keys()]).toContain(code)
  expect(limit).toBe(want.broken.get(code as AdmissionCode))
  if (limit !== undefined) expect(observed).toBeGreaterThan(limit)
  // Every check is made on a running total or a lower bound of one (an array's length before
  // its members, a string's length before its units), so what it saw never passes the total.
  if (want.totals !== null && observed !== undefined) {
    const total =
      code === 'ERR_JSON_TOO_MANY_NODES'
        ? want.totals.nodes
        : code === 'ERR_JSON_TOO_DEEP'
          ? want.totals.depth
          : want.totals.bytes
    expect(observed).toBeLessThanOrEqual(total)
  }
  expect(typeof path).toBe('string')
  if (path !== undefined && !path.includes('<') && !path.includes('…')) {
    expect(resolves(value, path)).toBe(true)
  }
}

/** Whether every segment of the JSON Pointer `path` names a member on the way down `value`. */
function resolves(value: unknown, path: string): boolean {
  if (path === '') return true
  let at: unknown = value
  for (const raw of path.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (at instanceof Set) at = [...at]
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, segment)) return false
    at = (at as Record<string, unknown>)[segment]
  }
  return true
}
