// Test helpers: chunked runs of the preflight (the strict JSON.parse reference they are judged
// against is @tollgate/test-kit/strict-json).
import { isAdmissionError, type JsonLimitsOptions } from '@tollgate/json-budget'
import { createPreflight, type PreflightPolicies } from '../../src/index.js'

/** Limits high enough that only the grammar and UTF-8 decide. */
export const WIDE: JsonLimitsOptions = { maxDepth: 1_000_000, maxNodes: 10_000_000 }

/** The outcome of one run: the counts, or the refusal's code and offset. */
export type Outcome =
  | { ok: true; nodes: number; depth: number; bytes: number }
  | { ok: false; code: string; offset: number | undefined; limit: number | undefined }

/**
 * Runs the preflight over `bytes` cut at `cuts` (sorted chunk boundaries). Also reports the
 * index of the push that threw (`cuts.length + 1` when `end` threw).
 */
export function run(
  bytes: Uint8Array,
  cuts: readonly number[] = [],
  limits: JsonLimitsOptions = WIDE,
  policies: PreflightPolicies = {},
): Outcome & { at: number } {
  // One flat options object: the limits and the policies are top-level keys side by side.
  const scanner = createPreflight({ ...limits, ...policies })
  let at = 0
  try {
    let from = 0
    for (const cut of [...cuts, bytes.length]) {
      scanner.push(bytes.subarray(from, cut))
      from = cut
      at++
    }
    const r = scanner.end()
    return { ok: true, nodes: r.nodes, depth: r.depth, bytes: r.bytes, at }
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    return { ok: false, code: error.code, offset: error.offset, limit: error.limit, at }
  }
}

/** The outcome without the push index, for comparing split runs with the one-shot run. */
export function verdict(
  bytes: Uint8Array,
  cuts: readonly number[] = [],
  limits: JsonLimitsOptions = WIDE,
  policies: PreflightPolicies = {},
): Outcome {
  const { at: _at, ...rest } = run(bytes, cuts, limits, policies)
  return rest
}

/** Every cut list that splits `bytes` into single bytes. */
export function byteCuts(length: number): number[] {
  return Array.from({ length: Math.max(0, length - 1) }, (_, k) => k + 1)
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)
export const hex = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, 'hex'))
