// Test helper: a document through each of the scanners `createPreflight` picks from, whole, at
// every two-chunk split and one byte a push, compared with the outcome it must have. The JS
// scanner is picked only past the module's container bits, so a test that used the defaults
// alone would hold the WebAssembly scanner only.
import { isAdmissionError } from '@tollgate/json-budget'
import { createPreflight, type Preflight, type PreflightOptions } from '../../src/index.js'
import { WASM_MAX_DEPTH } from '../../src/wasm-instance.js'

/** The three scanners, each made with `options` on top of what picks it. */
export const SCANNERS: ReadonlyArray<readonly [string, (options?: PreflightOptions) => Preflight]> =
  [
    ['the WebAssembly scanner', (options = {}) => createPreflight(options)],
    // A maxDepth past the module's container bits: the JS scanner and its whole-token fast path.
    [
      'the JS scanner',
      (options = {}) => createPreflight({ ...options, maxDepth: WASM_MAX_DEPTH + 1 }),
    ],
    // A key policy: the WebAssembly scanner on a module of its own.
    [
      'the WebAssembly scanner with a key policy',
      (options = {}) => createPreflight({ ...options, duplicateKeys: 'refuse' }),
    ],
    // A key policy past the container bits: the JS scanner without the fast path (every token
    // through the byte machine).
    [
      'the JS scanner with a key policy',
      (options = {}) =>
        createPreflight({ ...options, duplicateKeys: 'refuse', maxDepth: WASM_MAX_DEPTH + 1 }),
    ],
  ]

/** The UTF-8 bytes of `text`. */
export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

/** What a scan ends in: its counts, or the refusal's code, offset and limit. */
export type ScanOutcome =
  | { ok: true; nodes: number; depth: number }
  | { ok: false; code: string; offset: number | undefined; limit: number | undefined }

/** Pushes `chunks` into `scanner` and ends it. */
export function scanOf(scanner: Preflight, chunks: readonly Uint8Array[]): ScanOutcome {
  try {
    for (const chunk of chunks) scanner.push(chunk)
    const { nodes, depth } = scanner.end()
    return { ok: true, nodes, depth }
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    return { ok: false, code: error.code, offset: error.offset, limit: error.limit }
  }
}

/** What a scan of `chunks` ends in, depth left out: the node count, or code, limit and offset. */
export function outcome(
  make: (options?: PreflightOptions) => Preflight,
  options: PreflightOptions,
  chunks: readonly Uint8Array[],
) {
  const got = scanOf(make(options), chunks)
  return got.ok
    ? { ok: true, nodes: got.nodes }
    : { ok: false, code: got.code, limit: got.limit, offset: got.offset }
}

/** `doc` whole, at every two-chunk split, and one byte a push (a token open across many pushes). */
export function splitsOf(doc: Uint8Array): Uint8Array[][] {
  const splits: Uint8Array[][] = [[doc]]
  for (let cut = 1; cut < doc.length; cut++) splits.push([doc.subarray(0, cut), doc.subarray(cut)])
  splits.push(Array.from(doc, (_, k) => doc.subarray(k, k + 1)))
  return splits
}

/** Every (scanner, split) whose outcome on `doc` under `options` differs from `want`, labelled. */
export function differences(
  doc: Uint8Array,
  options: PreflightOptions,
  want: object,
  label: string,
): string[] {
  const out: string[] = []
  for (const [name, make] of SCANNERS) {
    for (const chunks of splitsOf(doc)) {
      const got = outcome(make, options, chunks)
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        out.push(`${name}, ${label}, chunks ${chunks.map((c) => c.length)}: ${JSON.stringify(got)}`)
      }
    }
  }
  return out
}
