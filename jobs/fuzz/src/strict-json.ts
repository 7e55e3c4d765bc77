/**
 * The reference the differential targets compare against: a strict UTF-8 decode followed by
 * `JSON.parse`, and an independent count of nodes and depth over text `JSON.parse` accepted.
 */
export type StrictVerdict =
  | { readonly ok: true; readonly value: unknown; readonly text: string }
  | { readonly ok: false; readonly reason: 'utf8' | 'syntax' }

/**
 * `JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM }).decode(bytes))`. With
 * `ignoreBOM: false` (the decoder's default) a leading BOM is stripped by the decoder, as the
 * preflight's `bom: 'strip'` policy does; with `true` it is kept and `JSON.parse` refuses it,
 * as the preflight's default `bom: 'refuse'` does.
 */
export function strictParse(bytes: Uint8Array, ignoreBOM = false): StrictVerdict {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM }).decode(bytes)
  } catch {
    return { ok: false, reason: 'utf8' }
  }
  try {
    return { ok: true, value: JSON.parse(text), text }
  } catch {
    return { ok: false, reason: 'syntax' }
  }
}

/**
 * Nodes and depth of JSON text that `JSON.parse` accepted, counted over the tokens (so a
 * duplicate key counts as written): each container, string (key or value), number and
 * literal is one node; depth is the deepest nesting of containers.
 */
export function countJsonText(text: string): { nodes: number; depth: number } {
  let nodes = 0
  let depth = 0
  let maxDepth = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const ch = text.charCodeAt(i)
    if (ch === 0x5b || ch === 0x7b) {
      nodes++
      depth++
      if (depth > maxDepth) maxDepth = depth
      i++
    } else if (ch === 0x5d || ch === 0x7d) {
      depth--
      i++
    } else if (ch === 0x22) {
      nodes++
      i++
      while (i < n && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1
      i++
    } else if (
      ch === 0x2d ||
      (ch >= 0x30 && ch <= 0x39) ||
      ch === 0x74 ||
      ch === 0x66 ||
      ch === 0x6e
    ) {
      nodes++
      while (i < n && /[0-9a-zA-Z+\-.]/.test(text[i] ?? '')) i++
    } else {
      i++
    }
  }
  return { nodes, depth: maxDepth }
}
