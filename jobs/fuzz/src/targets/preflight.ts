import { isAdmissionError } from '@tollgate/json-budget'
import { createPreflight, preflight } from '@tollgate/lexical-preflight'
import fc from 'fast-check'
import { anyDocument, anySplits, chunksOf } from '../arbitraries.js'
import { ddmin } from '../ddmin.js'
import { countJsonText, strictParse } from '../strict-json.js'
import {
  type ChunkedBytes,
  decodeChunked,
  encodeChunked,
  type FuzzTarget,
  minimizeChunked,
} from '../target.js'

type Outcome =
  | { ok: true; nodes: number; depth: number; bytes: number }
  | { ok: false; code: string; offset: number | undefined }

const LIMITS = { maxNodes: 100_000, maxDepth: 64 }

/** The scanner under test, one-shot or chunked. Replaceable so a test can plant a bug. */
export interface PreflightImpl {
  oneShot(bytes: Uint8Array, bom: 'strip' | 'refuse'): Outcome
  chunked(chunks: readonly Uint8Array[], bom: 'strip' | 'refuse'): Outcome
}

function run(fn: () => { nodes: number; depth: number; bytes: number }): Outcome {
  try {
    const r = fn()
    return { ok: true, nodes: r.nodes, depth: r.depth, bytes: r.bytes }
  } catch (error) {
    if (isAdmissionError(error)) return { ok: false, code: error.code, offset: error.offset }
    throw error
  }
}

export const realPreflight: PreflightImpl = {
  oneShot: (bytes, bom) => run(() => preflight(bytes, { ...LIMITS, bom })),
  chunked: (chunks, bom) =>
    run(() => {
      const scanner = createPreflight({ ...LIMITS, bom })
      for (const chunk of chunks) scanner.push(chunk)
      return scanner.end()
    }),
}

const LIMIT_CODES = new Set(['ERR_JSON_TOO_DEEP', 'ERR_JSON_TOO_MANY_NODES'])

/**
 * Judges one document: the preflight's verdict against strict `JSON.parse` (under both BOM
 * policies), its counts against an independent count, and the chunked verdict against the
 * one-shot verdict, code and offset included.
 */
export function judgePreflight(impl: PreflightImpl, input: ChunkedBytes): string | undefined {
  const { bytes } = input
  for (const bom of ['strip', 'refuse'] as const) {
    // The decoder strips a leading BOM unless told to keep it: `strip` matches the default
    // decoder, `refuse` matches a decoder that keeps it for JSON.parse to refuse.
    const reference = strictParse(bytes, bom === 'refuse')
    const one = impl.oneShot(bytes, bom)
    const label = `bom:${bom}`
    if (reference.ok) {
      const counts = countJsonText(reference.text)
      const overLimit = counts.depth > LIMITS.maxDepth || counts.nodes > LIMITS.maxNodes
      if (one.ok) {
        if (overLimit)
          return `${label}: admitted depth ${counts.depth}/nodes ${counts.nodes} past the limits`
        if (one.nodes !== counts.nodes || one.depth !== counts.depth) {
          return `${label}: counted nodes ${one.nodes} depth ${one.depth}, reference nodes ${counts.nodes} depth ${counts.depth}`
        }
        if (one.bytes !== bytes.length)
          return `${label}: bytes ${one.bytes}, input has ${bytes.length}`
      } else if (!(overLimit && LIMIT_CODES.has(one.code))) {
        return `${label}: JSON.parse accepts, preflight refuses with ${one.code} at ${one.offset}`
      }
    } else if (one.ok) {
      return `${label}: JSON.parse refuses (${reference.reason}), preflight admits`
    } else if (
      reference.reason === 'utf8' &&
      one.code !== 'ERR_JSON_INVALID_UTF8' &&
      !LIMIT_CODES.has(one.code)
    ) {
      // A grammar error before the bad byte may come first; only a valid-grammar prefix
      // must end in the UTF-8 code. Checked loosely: the code must be a JSON refusal.
      if (!one.code.startsWith('ERR_JSON_')) return `${label}: bad UTF-8 refused with ${one.code}`
    }
    const chunks = chunksOf(bytes, input.splits)
    const split = impl.chunked(chunks, bom)
    if (JSON.stringify(split) !== JSON.stringify(one)) {
      return `${label}: one-shot ${JSON.stringify(one)} but chunked (${chunks.map((c) => c.length).join('+')}) ${JSON.stringify(split)}`
    }
  }
  return undefined
}

export const preflightTarget: FuzzTarget<ChunkedBytes> = {
  name: 'preflight-vs-parse',
  description:
    'lexical-preflight vs JSON.parse over a strict UTF-8 decode, one-shot and random chunkings',
  shrink: true,
  minimizeBudget: 2_000,
  arbitrary: fc.record({ bytes: anyDocument, splits: anySplits }),
  async unavailable() {
    return typeof preflight === 'function' && typeof createPreflight === 'function'
      ? undefined
      : '@tollgate/lexical-preflight does not export preflight/createPreflight'
  },
  async check(input) {
    return judgePreflight(realPreflight, input)
  },
  minimize: (input, fails) => minimizeChunked(input, fails, ddmin, 2_000),
  encode: encodeChunked,
  decode: decodeChunked,
}
