import type fc from 'fast-check'

/**
 * One differential fuzz target: how to generate an input, how to judge it (a failure is a
 * disagreement between the implementation and its reference), how to shrink a failing input
 * further than fast-check's own shrinking, and how to store it in the corpus.
 */
export interface FuzzTarget<I> {
  /** Folder name under `corpus/`, and the `--target` name. */
  readonly name: string
  readonly description: string
  readonly arbitrary: fc.Arbitrary<I>
  /**
   * Let fast-check shrink a failing input before delta debugging. Off for the socket and
   * stream targets, whose checks are slow and whose failures may depend on timing.
   */
  readonly shrink: boolean
  /** Most predicate calls the delta debugging may spend. */
  readonly minimizeBudget: number
  /** Why the target cannot run (its package is not built or not exported yet), or undefined. */
  unavailable(): Promise<string | undefined>
  /** Starts what the checks share (a server), once per run. */
  setup?(): Promise<void>
  teardown?(): Promise<void>
  /** Undefined when the implementation agrees with the reference; else what differed. */
  check(input: I): Promise<string | undefined>
  /** Delta-debugs a failing input to a smaller one that still fails. */
  minimize(input: I, fails: (candidate: I) => Promise<boolean>): Promise<I>
  encode(input: I): unknown
  decode(stored: unknown): I
}

/** A byte document with fractional split points (see `chunksOf`). */
export interface ChunkedBytes {
  readonly bytes: Uint8Array
  readonly splits: readonly number[]
}

/** Corpus form of {@link ChunkedBytes}: base64 bytes, the text when it is UTF-8, the splits. */
export function encodeChunked(input: ChunkedBytes): unknown {
  return {
    base64: Buffer.from(input.bytes).toString('base64'),
    splits: input.splits,
  }
}

export function decodeChunked(stored: unknown): ChunkedBytes {
  const s = stored as { base64?: unknown; text?: unknown; splits?: unknown }
  const bytes =
    typeof s.base64 === 'string'
      ? new Uint8Array(Buffer.from(s.base64, 'base64'))
      : new TextEncoder().encode(String(s.text ?? ''))
  const splits = Array.isArray(s.splits) ? s.splits.map(Number) : []
  return { bytes, splits }
}

/** ddmin over the bytes (splits kept), then over the split points. */
export async function minimizeChunked(
  input: ChunkedBytes,
  fails: (candidate: ChunkedBytes) => Promise<boolean>,
  ddmin: <T>(
    items: readonly T[],
    f: (c: readonly T[]) => Promise<boolean>,
    max: number,
  ) => Promise<T[]>,
  budget: number,
): Promise<ChunkedBytes> {
  const bytes = await ddmin(
    [...input.bytes],
    (candidate) => fails({ bytes: Uint8Array.from(candidate), splits: input.splits }),
    budget,
  )
  const reduced = Uint8Array.from(bytes)
  const splits =
    input.splits.length === 0
      ? []
      : await ddmin(
          input.splits,
          (candidate) => fails({ bytes: reduced, splits: candidate }),
          budget,
        )
  // An empty split list may still fail; ddmin never tries it.
  if (splits.length === 1 && (await fails({ bytes: reduced, splits: [] }))) {
    return { bytes: reduced, splits: [] }
  }
  return { bytes: reduced, splits }
}
