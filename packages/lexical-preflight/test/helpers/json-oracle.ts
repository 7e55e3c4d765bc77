// The independent oracle of the scanner differential: `JSON.parse` over a strict UTF-8 decode
// (@tollgate/test-kit/strict-json), the counting walk (@tollgate/test-kit/json-count), and, for
// a text written by `JSON.stringify`, the written length of each string and number read back
// from the parsed value (stringify writes them canonically, so the value gives back their
// bytes). No grammar here: the grammar lives in src/scanner.ts alone.
import { Buffer } from 'node:buffer'
import type { AdmissionCode } from '@tollgate/json-budget'
import { countJson } from '@tollgate/test-kit/json-count'
import { strictJsonParse } from '@tollgate/test-kit/strict-json'
import type { ResolvedPreflightOptions } from '../../src/options.js'

/**
 * What a document must end in: its counts, or one of the refusals in `broken` (code -> limit);
 * `broken` is null for a text the strict reference refuses, which any refusal may stop first.
 */
export type Judgement =
  | { readonly ok: true; readonly nodes: number; readonly depth: number; readonly bytes: number }
  | {
      readonly ok: false
      readonly broken: ReadonlyMap<AdmissionCode, number | undefined> | null
      /** The text's totals, when it parses: what a limit refusal's `observed` cannot pass. */
      readonly totals: {
        readonly nodes: number
        readonly depth: number
        readonly bytes: number
      } | null
    }

/** A parsed value: a number literal past the double range is `Infinity`, still one scalar. */
const PARSED = { nonFiniteNumbers: true }

const hasBom = (b: Uint8Array) => b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf

/** Whether `bytes` is accepted by the strict reference under the options' BOM policy. */
export function strictVerdict(bytes: Uint8Array, options: ResolvedPreflightOptions) {
  return strictJsonParse(bytes, { stripBom: options.bom === 'strip' })
}

/**
 * Judges `bytes`, a UTF-8 text written by `JSON.stringify` (whitespace aside), under resolved
 * options, from the parsed value alone. Returns null when the value holds a duplicate key
 * (`dupes` says so): `JSON.parse` keeps one of them, so the value no longer tells the counts.
 */
export function judge(
  bytes: Uint8Array,
  options: ResolvedPreflightOptions,
  dupes: boolean,
): Judgement | null {
  const broken = new Map<AdmissionCode, number | undefined>()
  if (bytes.length > options.maxBytes) broken.set('ERR_JSON_TOO_LARGE', options.maxBytes)
  if (hasBom(bytes) && options.bom === 'refuse') broken.set('ERR_JSON_BOM', undefined)
  const parsed = strictJsonParse(bytes, { stripBom: true })
  if (!parsed.ok) return { ok: false, broken: null, totals: null }
  if (dupes) return null
  const count = countJson(parsed.value, PARSED)!
  if (count.nodes > options.maxNodes) broken.set('ERR_JSON_TOO_MANY_NODES', options.maxNodes)
  if (count.depth > options.maxDepth) broken.set('ERR_JSON_TOO_DEEP', options.maxDepth)
  const { longestString, longestNumber, protoKey } = written(parsed.value)
  if (longestString > options.maxStringBytes) {
    broken.set('ERR_JSON_STRING_TOO_LONG', options.maxStringBytes)
  }
  if (longestNumber > options.maxNumberLength) {
    broken.set('ERR_JSON_NUMBER_TOO_LONG', options.maxNumberLength)
  }
  if (protoKey && options.protoKeys === 'refuse') broken.set('ERR_JSON_PROTO_KEY', undefined)
  const totals = { nodes: count.nodes, depth: count.depth, bytes: bytes.length }
  if (broken.size > 0) return { ok: false, broken, totals }
  return { ok: true, ...totals }
}

/**
 * The longest string (raw bytes between its quotes, as stringify writes it) and number
 * (characters as written) of a parsed value, and whether it holds a `__proto__` key or a
 * `prototype` key inside the value of a `constructor` key.
 */
function written(value: unknown) {
  let longestString = 0
  let longestNumber = 0
  let protoKey = false
  const stack: Array<[unknown, boolean]> = [[value, false]]
  const string = (s: string) => {
    const n = Buffer.byteLength(JSON.stringify(s)) - 2
    if (n > longestString) longestString = n
  }
  while (stack.length > 0) {
    const [v, underConstructor] = stack.pop()!
    if (typeof v === 'string') string(v)
    else if (typeof v === 'number') longestNumber = Math.max(longestNumber, String(v).length)
    else if (Array.isArray(v)) for (const m of v) stack.push([m, false])
    else if (typeof v === 'object' && v !== null) {
      for (const k of Object.keys(v)) {
        string(k)
        if (k === '__proto__' || (k === 'prototype' && underConstructor)) protoKey = true
        stack.push([(v as Record<string, unknown>)[k], k === 'constructor'])
      }
    }
  }
  return { longestString, longestNumber, protoKey }
}
