// The key policies of the WebAssembly scanner (assembly/scanner.ts calls these; src/key-policy.ts
// is the JS reference): duplicate keys per object, compared after unescaping, and `__proto__`
// (or `prototype` in the object value of a `constructor` key). A module holding key state
// serves one scanner at a time (src/wasm-instance.ts pools such modules), since the state lives
// in its memory between pushes.
//
// Memory past the scanner's pages: the hash buckets at BUCKETS (one u32 per bucket, the newest
// record of the chain, 0 for none), then one stack of records from STACK_BASE, grown page by
// page. An open object pushes a frame record; each key of it (with duplicateKeys refused) pushes
// a key record holding its decoded bytes; closing the object pops back to its frame, unlinking
// its keys, which are always the newest records of their chains. Everything is bounded by the
// input: a key record is at most 24 bytes plus the key's raw bytes.
//
// A key is compared as the string JSON.parse would make: its bytes are decoded in place to
// generalized UTF-8 (escapes decoded, a \uD8xx\uDCxx pair joined into one code point, a lone
// surrogate as its 3-byte form), where equal strings have equal bytes.

import { IN } from './bytes'

const K_KEYS = 20 // bit 0: duplicateKeys refused; bit 1: protoKeys refused
const K_TOP = 21 // first free byte of the stack
const K_LAST = 22 // newest record, 0 for none
const K_FRAME = 23 // frame record of the innermost open object, 0 for none
const K_PENDING = 24 // raw bytes of the open key saved from earlier pieces; -1: too long to matter
// K_SEED (slots 26..29): the hash key, two u64 written by JS when the module is made.
const SEED: usize = 26 << 2

const BUCKETS: usize = 262144
const BUCKET_BITS: u32 = 16
export const STACK_BASE: usize = BUCKETS + ((<usize>1) << BUCKET_BITS) * 4

const FRAME_TAG: u32 = 0xffffffff
// Frame record: prev, tag, parent frame, flags. Key record: prev, length, next in chain,
// bucket, hash, frame, then the decoded bytes (padded to 4).
const FRAME_SIZE: usize = 16
const KEY_HEAD: usize = 24
// Frame flags.
const CONSTRUCTOR_VALUE: u32 = 1 // the object is the value of a `constructor` key
const LAST_KEY_CONSTRUCTOR: u32 = 2 // its latest key is `constructor`

/** The longest raw key that can decode to `constructor` (11 × `\uXXXX`). */
const PROTO_CAPTURE = 66

function get(k: i32): i32 {
  return load<i32>((<usize>k) << 2)
}

function put(k: i32, v: i32): void {
  store<i32>((<usize>k) << 2, v)
}

/** Grows memory so bytes below `end` exist; false when it cannot grow. */
function ensure(end: usize): bool {
  const have = (<usize>memory.size()) << 16
  if (end <= have) return true
  return memory.grow(<i32>((end - have + 0xffff) >> 16)) !== -1
}

/** Pops every record: a module taken for a new scanner starts with no open object. */
export function keysReset(): void {
  let r = <usize>get(K_LAST)
  while (r !== 0) {
    if (load<u32>(r, 4) !== FRAME_TAG) unlink(r)
    r = <usize>load<u32>(r)
  }
  put(K_TOP, <i32>STACK_BASE)
  put(K_LAST, 0)
  put(K_FRAME, 0)
  put(K_PENDING, 0)
}

function unlink(r: usize): void {
  store<u32>(BUCKETS + ((<usize>load<u32>(r, 12)) << 2), load<u32>(r, 8))
}

/** An object opens; `valueOfKey`: it is the value of a key. False when memory cannot grow. */
export function keysOpen(valueOfKey: bool): bool {
  const top = <usize>get(K_TOP)
  if (!ensure(top + FRAME_SIZE)) return false
  const parent = <usize>get(K_FRAME)
  const flags: u32 =
    valueOfKey && parent !== 0 && (load<u32>(parent, 12) & LAST_KEY_CONSTRUCTOR) !== 0
      ? CONSTRUCTOR_VALUE
      : 0
  store<u32>(top, <u32>get(K_LAST))
  store<u32>(top, FRAME_TAG, 4)
  store<u32>(top, <u32>parent, 8)
  store<u32>(top, flags, 12)
  put(K_LAST, <i32>top)
  put(K_FRAME, <i32>top)
  put(K_TOP, <i32>(top + FRAME_SIZE))
  return true
}

/** The innermost object closes: its key records leave their chains and the stack. */
export function keysClose(): void {
  const frame = <usize>get(K_FRAME)
  let r = <usize>get(K_LAST)
  while (r !== frame) {
    unlink(r)
    r = <usize>load<u32>(r)
  }
  put(K_LAST, <i32>load<u32>(frame))
  put(K_FRAME, <i32>load<u32>(frame, 8))
  put(K_TOP, <i32>frame)
}

/** A key string begins. */
export function keysBegin(): void {
  put(K_PENDING, 0)
}

/**
 * The piece ends inside a key: its raw bytes `from..n` are kept after the stack top (where the
 * key's record would go). False when memory cannot grow.
 */
export function keysSave(from: i32, n: i32): bool {
  const p = get(K_PENDING)
  if (p < 0) return true
  const len = n - from
  if ((get(K_KEYS) & 1) === 0 && p + len > PROTO_CAPTURE) {
    put(K_PENDING, -1)
    return true
  }
  const dst = <usize>get(K_TOP) + KEY_HEAD + <usize>p
  if (!ensure(dst + <usize>len)) return false
  memory.copy(dst, IN + <usize>from, <usize>len)
  put(K_PENDING, p + len)
  return true
}

/**
 * The key ends before `to`, its bytes in this piece starting at `from` (after any saved ones).
 * @returns 0 admitted, 1 a duplicate, 2 prototype-polluting, -1 memory cannot grow.
 */
export function keysEnd(from: i32, to: i32): i32 {
  const policy = get(K_KEYS)
  const frame = <usize>get(K_FRAME)
  const p = get(K_PENDING)
  const len = to - from
  let flags = load<u32>(frame, 12) & ~LAST_KEY_CONSTRUCTOR
  if (p < 0 || ((policy & 1) === 0 && p + len > PROTO_CAPTURE)) {
    store<u32>(frame, flags, 12)
    return 0
  }
  const rec = <usize>get(K_TOP)
  const body = rec + KEY_HEAD
  // 8 bytes of slack: the hash reads whole words.
  if (!ensure(body + <usize>(p + len) + 8)) return -1
  memory.copy(body + <usize>p, IN + <usize>from, <usize>len)
  const n = decode(body, p + len)
  if (
    n === 11 &&
    load<u64>(body) === wide(0x63757274, 0x736e6f63) &&
    load<u32>(body, 7) === 0x726f7463
  ) {
    flags |= LAST_KEY_CONSTRUCTOR
  }
  store<u32>(frame, flags, 12)
  if ((policy & 2) !== 0 && n === 9) {
    const head = load<u64>(body)
    const last = load<u8>(body, 8)
    if (head === wide(0x5f6f746f, 0x72705f5f) && last === 0x5f) return 2
    if (head === wide(0x7079746f, 0x746f7270) && last === 0x65 && (flags & CONSTRUCTOR_VALUE) !== 0)
      return 2
  }
  if ((policy & 1) === 0) return 0
  const h = hash(body, n)
  const b = (h ^ (<u32>(frame >> 4) * 0x9e3779b1)) >>> (32 - BUCKET_BITS)
  const slot = BUCKETS + ((<usize>b) << 2)
  let e = <usize>load<u32>(slot)
  while (e !== 0) {
    if (
      load<u32>(e, 20) === <u32>frame &&
      load<u32>(e, 16) === h &&
      load<i32>(e, 4) === n &&
      memory.compare(e + KEY_HEAD, body, <usize>n) === 0
    ) {
      return 1
    }
    e = <usize>load<u32>(e, 8)
  }
  store<u32>(rec, <u32>get(K_LAST))
  store<i32>(rec, n, 4)
  store<u32>(rec, load<u32>(slot), 8)
  store<u32>(rec, b, 12)
  store<u32>(rec, h, 16)
  store<u32>(rec, <u32>frame, 20)
  store<u32>(slot, <u32>rec)
  put(K_LAST, <i32>rec)
  put(K_TOP, <i32>((body + <usize>n + 3) & ~3))
  return 0
}

/** The u64 with high word `hi` and low word `lo`. */
function wide(hi: u32, lo: u32): u64 {
  return ((<u64>hi) << 32) | lo
}

function hexAt(p: usize): u32 {
  let v: u32 = 0
  for (let k: usize = 0; k < 4; k++) {
    const c = <u32>load<u8>(p + k)
    v = (v << 4) | (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57)
  }
  return v
}

function simple(e: u32): u32 {
  if (e === 0x62) return 0x08
  if (e === 0x66) return 0x0c
  if (e === 0x6e) return 0x0a
  if (e === 0x72) return 0x0d
  if (e === 0x74) return 0x09
  return e // '"', '\\', '/'
}

/**
 * Decodes the `n` raw bytes at `p` (a string body the scanner validated) in place, to
 * generalized UTF-8; never longer than the raw bytes. Returns the decoded length.
 */
function decode(p: usize, n: i32): i32 {
  const end = p + <usize>n
  let r = p
  // Up to the first backslash nothing moves.
  while (r < end && load<u8>(r) !== 0x5c) r++
  let w = r
  while (r < end) {
    const c = <u32>load<u8>(r)
    if (c !== 0x5c) {
      store<u8>(w++, <u8>c)
      r++
      continue
    }
    const e = <u32>load<u8>(r, 1)
    if (e !== 0x75) {
      store<u8>(w++, <u8>simple(e))
      r += 2
      continue
    }
    let cp = hexAt(r + 2)
    r += 6
    if (cp >= 0xd800 && cp <= 0xdbff && r + 6 <= end && load<u16>(r) === 0x755c) {
      const low = hexAt(r + 2)
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00)
        r += 6
      }
    }
    if (cp < 0x80) store<u8>(w++, <u8>cp)
    else if (cp < 0x800) {
      store<u8>(w++, <u8>(0xc0 | (cp >> 6)))
      store<u8>(w++, <u8>(0x80 | (cp & 0x3f)))
    } else if (cp < 0x10000) {
      store<u8>(w++, <u8>(0xe0 | (cp >> 12)))
      store<u8>(w++, <u8>(0x80 | ((cp >> 6) & 0x3f)))
      store<u8>(w++, <u8>(0x80 | (cp & 0x3f)))
    } else {
      store<u8>(w++, <u8>(0xf0 | (cp >> 18)))
      store<u8>(w++, <u8>(0x80 | ((cp >> 12) & 0x3f)))
      store<u8>(w++, <u8>(0x80 | ((cp >> 6) & 0x3f)))
      store<u8>(w++, <u8>(0x80 | (cp & 0x3f)))
    }
  }
  return <i32>(w - p)
}

// SipHash-1-3 with the module's random key: chains stay short whatever keys a client picks.
let v0: u64 = 0
let v1: u64 = 0
let v2: u64 = 0
let v3: u64 = 0

function round(): void {
  v0 += v1
  v1 = rotl<u64>(v1, 13)
  v1 ^= v0
  v0 = rotl<u64>(v0, 32)
  v2 += v3
  v3 = rotl<u64>(v3, 16)
  v3 ^= v2
  v0 += v3
  v3 = rotl<u64>(v3, 21)
  v3 ^= v0
  v2 += v1
  v1 = rotl<u64>(v1, 17)
  v1 ^= v2
  v2 = rotl<u64>(v2, 32)
}

function hash(p: usize, n: i32): u32 {
  const k0 = load<u64>(SEED)
  const k1 = load<u64>(SEED, 8)
  v0 = k0 ^ wide(0x736f6d65, 0x70736575)
  v1 = k1 ^ wide(0x646f7261, 0x6e646f6d)
  v2 = k0 ^ wide(0x6c796765, 0x6e657261)
  v3 = k1 ^ wide(0x74656462, 0x79746573)
  const words = p + (<usize>n & ~7)
  let q = p
  while (q < words) {
    const m = load<u64>(q)
    v3 ^= m
    round()
    v0 ^= m
    q += 8
  }
  const tail = n & 7
  let m: u64 = (<u64>n) << 56
  if (tail !== 0) m |= load<u64>(q) & (((<u64>1) << ((<u64>tail) << 3)) - 1)
  v3 ^= m
  round()
  v0 ^= m
  v2 ^= 0xff
  round()
  round()
  round()
  const x = v0 ^ v1 ^ v2 ^ v3
  return <u32>(x ^ (x >> 32))
}
