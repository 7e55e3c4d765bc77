// Inlining `$ref` so a client reading `tools/list` gets one self-contained schema: the
// published contract, not a pointer to a URI that is an identifier only and serves nothing.

/** Keywords whose values are data, never schemas: a `$ref` inside them is not a reference. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples'])

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/**
 * Returns a copy of `schema` with every `$ref` replaced by a copy of its target, resolved by
 * `$id` against `documents` (absolute `$id` → schema) and a JSON Pointer fragment. A `$ref`
 * alone becomes its target; a `$ref` beside other keywords becomes one more `allOf` branch,
 * which keeps `unevaluatedProperties` seeing what the target evaluates. An inlined target
 * loses its `$id`, `$schema` and `$anchor` at every depth, so no resource is named twice.
 * @throws Error on a target that is not loaded, a recursive `$ref`, an anchor fragment or a
 *   `$dynamicRef`, none of which can be inlined faithfully.
 */
export function bundleSchema(
  schema: unknown,
  baseId: string,
  documents: ReadonlyMap<string, unknown>,
): unknown {
  return inline(schema as Json, baseId, documents, [])
}

function inline(
  node: Json,
  base: string,
  documents: ReadonlyMap<string, unknown>,
  stack: readonly string[],
): Json {
  if (Array.isArray(node)) return node.map((each) => inline(each, base, documents, stack))
  if (node === null || typeof node !== 'object') return node
  if (typeof node.$id === 'string') base = new URL(node.$id, base).href
  if ('$dynamicRef' in node) throw new Error('$dynamicRef cannot be inlined')
  const out: { [key: string]: Json } = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref') continue
    out[key] = DATA_KEYWORDS.has(key) ? value : inline(value, base, documents, stack)
  }
  if (typeof node.$ref !== 'string') return out
  const target = resolve(node.$ref, base, documents, stack)
  if (Object.keys(out).length === 0) return target
  const allOf = Array.isArray(out.allOf) ? out.allOf : []
  out.allOf = [...allOf, target]
  return out
}

function resolve(
  ref: string,
  base: string,
  documents: ReadonlyMap<string, unknown>,
  stack: readonly string[],
): Json {
  const url = new URL(ref, base)
  const fragment = decodeURIComponent(url.hash.slice(1))
  url.hash = ''
  const docId = url.href
  const key = `${docId}#${fragment}`
  if (stack.includes(key)) throw new Error(`recursive $ref ${key} cannot be inlined`)
  if (!documents.has(docId)) throw new Error(`$ref target ${docId} is not loaded`)
  if (fragment !== '' && !fragment.startsWith('/')) {
    throw new Error(`$ref ${key}: anchor fragments are not supported`)
  }
  let target = documents.get(docId) as Json
  for (const raw of fragment === '' ? [] : fragment.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (target === null || typeof target !== 'object' || !Object.hasOwn(target, segment)) {
      throw new Error(`$ref ${key} points at nothing`)
    }
    target = (target as Record<string, Json>)[segment] as Json
  }
  return withoutIdentity(inline(target, docId, documents, [...stack, key]))
}

/** Keywords that name a schema resource or say its dialect, never constrain an instance. */
const IDENTITY_KEYWORDS = new Set(['$id', '$schema', '$anchor'])

/**
 * A copy of an inlined `$ref` target without `$id`, `$schema` and `$anchor` at any depth. Once
 * inlined it holds no `$ref` (inline replaced them all), so they only named the resource; kept,
 * the bundle would carry the same `$id` twice (the target in place and in its `$defs`, or two
 * references to one target), which a 2020-12 validator refuses to compile.
 */
function withoutIdentity(node: Json): Json {
  if (Array.isArray(node)) return node.map(withoutIdentity)
  if (node === null || typeof node !== 'object') return node
  const out: { [key: string]: Json } = {}
  for (const [key, value] of Object.entries(node)) {
    if (IDENTITY_KEYWORDS.has(key)) continue
    out[key] = DATA_KEYWORDS.has(key) ? value : withoutIdentity(value)
  }
  return out
}
