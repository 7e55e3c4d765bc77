// A seeded generator of JSON documents over the dimensions a bench of fixed shapes leaves out:
// size, escape density, script, key count and length, depth, number shape, whitespace runs and
// the chunk size a body arrives in. `family(count, seed, maxBytes)` draws `count` shapes; each
// names itself, so a worst ratio can say which shape it was measured on.

/** Mulberry32: a small seeded generator, so a family is the same in every run. */
export function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

const pick = (r, xs) => xs[Math.floor(r() * xs.length)]

/** Sizes from 64 B to 64 MiB, powers of 4. */
export const SIZES = [
  64,
  256,
  1024,
  4096,
  16384,
  65536,
  262144,
  1 << 20,
  4 << 20,
  16 << 20,
  64 << 20,
]
export const ESCAPES = [0, 0.01, 0.1, 0.5]
export const SCRIPTS = ['ascii', 'latin', 'cjk', 'emoji']
export const KEYS = [
  [1, 4],
  [8, 8],
  [64, 3],
  [16, 40],
]
export const DEPTHS = [1, 4, 16, 60]
export const NUMBERS = ['int', 'float', 'exp', 'long']
export const SPACES = ['none', 'indent', 'runs']
export const CHUNKS = [1, 16, 1024, 65536]

const ALPHABET = {
  ascii: 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ0123456789.,-',
  latin: 'abcdeéèàçôüß ñØÆ',
  cjk: '中文日志引用数据服务器请求',
  emoji: 'ok 😀🚀✓ ',
}
const ESCAPED = ['"', '\\', '\n', '\t', '\r', '\u0001', '/']

/** A string of about `units` code units in `script`, an escape at rate `density`. */
function text(r, units, script, density) {
  const alphabet = ALPHABET[script]
  let out = ''
  while (out.length < units) {
    if (density > 0 && r() < density) out += pick(r, ESCAPED)
    else {
      const k = Math.floor(r() * alphabet.length)
      // Astral characters are two units: take the whole code point.
      out += String.fromCodePoint(alphabet.codePointAt(k) ?? 0x61)
    }
  }
  return out
}

function number(r, kind) {
  if (kind === 'int') return Math.floor(r() * 1e6)
  if (kind === 'float') return Math.round(r() * 1e6) / 1e3
  if (kind === 'exp') return (r() - 0.5) * 1e-30
  return Math.floor(r() * 2 ** 52)
}

/**
 * One record: `count` keys of `length` units, values alternating strings and numbers, fewer
 * keys when the record would pass `room` bytes of compact JSON.
 */
function record(r, shape, room) {
  const [count, length] = shape.keys
  const out = {}
  let bytes = 2
  for (let k = 0; k < count && bytes < room; k++) {
    const key = `${k}_${text(r, length, 'ascii', 0)}`.slice(0, Math.max(length, 2))
    out[key] = k % 2 ? number(r, shape.number) : text(r, 24, shape.script, shape.escape)
    bytes +=
      Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(JSON.stringify(out[key])) + 2
  }
  return out
}

/** Wraps `value` in `depth - 1` containers, alternating objects and arrays. */
function nest(value, depth) {
  let out = value
  for (let d = 1; d < depth; d++) out = d % 2 ? [out] : { n: out }
  return out
}

/** The document for `shape`: its value, and its text with the shape's whitespace. */
export function documentOf(shape, seed) {
  const r = rng(seed)
  const render = (v) => {
    if (shape.spaces === 'indent') return JSON.stringify(v, null, 2)
    if (shape.spaces === 'runs') return JSON.stringify(v).replace(/,/g, `,${' '.repeat(40)}`)
    return JSON.stringify(v)
  }
  const items = []
  let bytes = 2
  // Records, as written with the shape's whitespace, until the size is reached; at least one.
  do {
    const item = nest(record(r, shape, shape.size - bytes - 4 * shape.depth), shape.depth)
    bytes += Buffer.byteLength(render(item)) + 1
    items.push(item)
  } while (bytes < shape.size)
  return { value: items, bytes: Buffer.from(render(items)) }
}

/** A name that says every dimension of `shape`. */
export function nameOf(s) {
  const size =
    s.size >= 1 << 20
      ? `${s.size >> 20} MiB`
      : s.size >= 1024
        ? `${s.size >> 10} KiB`
        : `${s.size} B`
  return `${size} ${s.script} esc ${s.escape} keys ${s.keys[0]}x${s.keys[1]} depth ${s.depth} ${s.number} ws ${s.spaces} chunk ${s.chunk}`
}

/** `count` shapes drawn with `seed`, sizes at most `maxBytes`; the first shapes pin the corners. */
export function family(count, seed, maxBytes) {
  const r = rng(seed)
  const sizes = SIZES.filter((s) => s <= maxBytes)
  const shapes = []
  for (let k = 0; k < count; k++) {
    shapes.push({
      // Every size at least once, then drawn.
      size: k < sizes.length ? sizes[k] : pick(r, sizes),
      escape: pick(r, ESCAPES),
      script: pick(r, SCRIPTS),
      keys: pick(r, KEYS),
      depth: pick(r, DEPTHS),
      number: pick(r, NUMBERS),
      spaces: pick(r, SPACES),
      chunk: pick(r, CHUNKS),
      seed: Math.floor(r() * 2 ** 31),
    })
  }
  return shapes.map((s) => ({ ...s, name: nameOf(s) }))
}
