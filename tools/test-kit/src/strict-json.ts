// The reference the parsers are judged against: a strict UTF-8 decode (an invalid sequence
// throws instead of becoming U+FFFD) followed by JSON.parse.

/** The reference verdict: the parsed value, or a refusal (invalid UTF-8 or JSON syntax). */
export type StrictJsonVerdict =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false }

/** Options of the strict JSON reference. */
export interface StrictJsonOptions {
  /**
   * Remove a leading BOM before `JSON.parse` (as the preflight's `bom: 'strip'` policy does).
   * Default: `false`: the BOM is kept, so `JSON.parse` sees U+FEFF and refuses it.
   */
  readonly stripBom?: boolean
}

/** `JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: !stripBom }).decode(bytes))`, as a verdict. */
export function strictJsonParse(
  bytes: Uint8Array,
  { stripBom = false }: StrictJsonOptions = {},
): StrictJsonVerdict {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: !stripBom }).decode(bytes)
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

/** Whether the strict reference accepts `bytes` (see `strictJsonParse`). */
export function isStrictJson(bytes: Uint8Array, options: StrictJsonOptions = {}): boolean {
  return strictJsonParse(bytes, options).ok
}
