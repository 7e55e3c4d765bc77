// Helper test: it moves the body store's spill point (src/body-store.ts) from 16 MiB down to
// 256 KiB, so that bodies of a few hundred KiB exercise it; one case at the real spill point
// follows. Large bodies (past the spill point, and past half their declared length, where
// the declared length is reserved) are admitted byte-identical to what was sent, whatever the
// chunking, with and without Content-Length, gzip included; and the in-flight budget never
// holds more than the bytes received (at most the declared length, once half has arrived).
import { createHash } from 'node:crypto'
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { gzipSync } from 'node:zlib'
import { fc, test } from '@fast-check/vitest'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SPILL_BYTES, setSpillBytesForTests } from '../src/body-store.js'
import {
  type AdmitResult,
  admitNodeRequest,
  bodyAdmission,
  createInFlightBudget,
  type InFlightBudget,
  sendRefusal,
} from '../src/index.js'
import { admitStream } from './helpers/admit-stream.js'

const MiB = 1024 * 1024

/**
 * A JSON array of about `size` bytes: strings mixing 1- to 4-byte UTF-8 and escapes, drawn
 * from a pool of 32 and numbered, so no two stretches of the body are alike (a byte written at
 * the wrong offset cannot land on an identical byte).
 */
function bodyOf(seed: number, size: number): Buffer {
  const units = ['abcdefgh', 'é', '漢', '😀', '\\n', '\\u00e9', '\\"', ' ', '\\ud83d\\ude00', '0']
  let state = seed >>> 0 || 1
  const next = () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 2 ** 32
  }
  const pool: string[] = []
  for (let k = 0; k < 32; k++) {
    let s = ''
    const n = 1 + Math.floor(next() * 4000)
    for (let i = 0; i < n; i++) s += units[Math.floor(next() * units.length)]
    pool.push(s)
  }
  const parts: string[] = []
  let length = 2
  for (let i = 0; length < size; i++) {
    const part = `"${pool[Math.floor(next() * pool.length)]}#${i}"`
    parts.push(part)
    length += Buffer.byteLength(part) + 1
  }
  return Buffer.from(`[${parts.join(',')}]`)
}

/** `bytes` in pieces of the given sizes, cycled (each at least 1 byte). */
function piecesOf(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = []
  let at = 0
  for (let i = 0; at < bytes.length; i++) {
    const size = Math.max(1, sizes[i % sizes.length] as number)
    out.push(bytes.subarray(at, at + size))
    at += size
  }
  return out
}

const sha = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex')

/**
 * A budget that records, at every reservation, how far what it holds for this body is past
 * what the body was allowed (`allowed()`, read from the test's own count of bytes received).
 */
function watchedBudget(allowed: () => number) {
  const inner = createInFlightBudget(256 * MiB)
  const watch = { worst: Number.NEGATIVE_INFINITY, reservations: 0 }
  const budget: InFlightBudget = {
    get maxBytes() {
      return inner.maxBytes
    },
    get inFlight() {
      return inner.inFlight
    },
    tryAcquire(bytes) {
      const ok = inner.tryAcquire(bytes)
      watch.reservations++
      watch.worst = Math.max(watch.worst, inner.inFlight - allowed())
      return ok
    },
    release(bytes) {
      inner.release(bytes)
    },
  }
  return { budget, watch, inner }
}

/** What a body may hold in the budget: its bytes received, or the declared length once half arrived. */
function allowance(received: number, declared: number | undefined): number {
  return declared !== undefined && received * 2 >= declared ? declared : received
}

const SPILL = 256 * 1024
// Dozens of bodies of up to 2 MiB in pieces as small as one byte, each admitted and hashed:
// seconds on an idle machine, past the 30 s default on a loaded 2-core CI machine. A
// deadline, not a timing: nothing asserts how long it took.
const DEADLINE_MS = 180_000
beforeAll(() => setSpillBytesForTests(SPILL))
afterAll(() => setSpillBytesForTests())

// Past the spill point, so each body crosses it (and, with a Content-Length, half its length).
const sizeArb = fc.integer({ min: SPILL + 1, max: 8 * SPILL })
// Tiny pieces mixed with large ones; each cycle of sizes carries at least 16 KiB, so a body
// is a few thousand pieces at most.
const chunkSizesArb = fc
  .array(fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1024, max: 128 * 1024 })), {
    minLength: 1,
    maxLength: 8,
  })
  .map((sizes) => (sizes.reduce((a, b) => a + b, 0) < 16384 ? [...sizes, 16384] : sizes))

describe('admitBody (large bodies)', () => {
  test.prop([fc.nat(), sizeArb, chunkSizesArb, fc.constantFrom('length', 'none', 'gzip')], {
    numRuns: 40,
  })(
    'admits any chunking of a body past the spill point byte-identical, the budget within what was received',
    async (seed, size, sizes, mode) => {
      const text = bodyOf(seed, size)
      const wire = mode === 'gzip' ? gzipSync(text) : text
      let received = 0
      async function* source() {
        for (const piece of piecesOf(wire, sizes)) {
          received += piece.byteLength
          yield piece
        }
      }
      const declared = mode === 'length' ? wire.length : undefined
      // Inflated bytes cannot be counted from outside; an encoded body may hold its own total.
      const { budget, watch, inner } = watchedBudget(() =>
        mode === 'gzip' ? text.length : allowance(received, declared),
      )
      const options = bodyAdmission({ budget, keepRaw: true })
      const result = await admitStream(source(), options, {
        declaredLength: declared,
        contentEncoding: mode === 'gzip' ? 'gzip' : undefined,
      })
      expect(result.ok).toBe(true)
      if (!result.ok) return
      expect(result.raw && Buffer.compare(result.raw, text)).toBe(0)
      expect(JSON.stringify(result.value)).toBe(JSON.stringify(JSON.parse(text.toString('utf8'))))
      expect(result.bytes).toBe(text.length)
      expect(watch.reservations).toBeGreaterThan(0)
      expect(watch.worst).toBeLessThanOrEqual(0)
      expect(inner.inFlight).toBe(0)
    },
    DEADLINE_MS,
  )
})

describe('admitNodeRequest (large bodies through a socket)', () => {
  let running: Running
  const seen = new Map<string, { worst: number; result: AdmitResult }>()

  beforeAll(async () => {
    running = await listen(async (req: IncomingMessage, res: ServerResponse) => {
      const id = String(req.headers['x-case'])
      const declaredHeader = req.headers['content-length']
      const declared =
        req.headers['content-encoding'] === undefined && declaredHeader !== undefined
          ? Number(declaredHeader)
          : undefined
      let received = 0
      // Registered before the admission's own listener, so it has counted every chunk the
      // admission is handed by the time that chunk is reserved.
      req.on('data', (chunk: Buffer) => {
        received += chunk.byteLength
      })
      const gzip = req.headers['content-encoding'] === 'gzip'
      const { budget, watch } = watchedBudget(() =>
        gzip ? Number(req.headers['x-inflated']) : allowance(received, declared),
      )
      const keepRaw = req.headers['x-keep-raw'] === '1'
      const result = await admitNodeRequest(req, bodyAdmission({ budget, keepRaw }))
      seen.set(id, { worst: watch.worst, result })
      if (!result.ok) return sendRefusal(res, result.error)
      res.setHeader('content-type', 'application/json')
      res.end(
        JSON.stringify({
          raw: result.raw ? sha(result.raw) : null,
          value: sha(JSON.stringify(result.value)),
          inFlight: budget.inFlight,
        }),
      )
    })
  })
  afterAll(async () => {
    await running.close()
  })

  /** POSTs `wire` in pieces of `sizes`, waiting for each write, and resolves with the answer. */
  function post(id: string, wire: Buffer, sizes: number[], headers: Record<string, string>) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: running.port,
          method: 'POST',
          path: '/',
          headers: { 'content-type': 'application/json', 'x-case': id, ...headers },
        },
        (res) => {
          const parts: Buffer[] = []
          res.on('data', (c: Buffer) => parts.push(c))
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString() }),
          )
        },
      )
      req.on('error', reject)
      void (async () => {
        for (const piece of piecesOf(wire, sizes)) {
          await new Promise<void>((done) => req.write(piece, () => done()))
        }
        req.end()
      })()
    })
  }

  let cases = 0
  test.prop(
    [
      fc.nat(),
      sizeArb,
      chunkSizesArb,
      fc.constantFrom('length', 'chunked', 'gzip', 'gzip-length'),
      fc.boolean(),
    ],
    { numRuns: 24 },
  )(
    'admits a body past the spill point byte-identical for any chunking, with and without Content-Length, gzip included',
    async (seed, size, sizes, mode, keepRaw) => {
      const id = String(cases++)
      const text = bodyOf(seed, size)
      const gzip = mode.startsWith('gzip')
      const wire = gzip ? gzipSync(text) : text
      const headers: Record<string, string> = { 'x-keep-raw': keepRaw ? '1' : '0' }
      if (mode === 'length' || mode === 'gzip-length')
        headers['content-length'] = String(wire.length)
      if (gzip) {
        headers['content-encoding'] = 'gzip'
        headers['x-inflated'] = String(text.length)
      }
      const response = await post(id, wire, sizes, headers)
      expect(response.status).toBe(200)
      const answer = JSON.parse(response.body) as {
        raw: string | null
        value: string
        inFlight: number
      }
      expect(answer.value).toBe(sha(JSON.stringify(JSON.parse(text.toString('utf8')))))
      expect(answer.raw).toBe(keepRaw ? sha(text) : null)
      expect(answer.inFlight).toBe(0)
      const record = seen.get(id)
      expect(record?.result.ok && record.result.bytes).toBe(text.length)
      expect(record?.worst).toBeLessThanOrEqual(0)
    },
    DEADLINE_MS,
  )

  it('admits a body past the real 16 MiB spill point byte-identical, the budget within what was received', {
    timeout: DEADLINE_MS,
  }, async () => {
    setSpillBytesForTests()
    try {
      const text = bodyOf(7, SPILL_BYTES + MiB)
      const response = await post('real-spill', text, [65536, 1000, 300000], {
        'content-length': String(text.length),
        'x-keep-raw': '1',
      })
      expect(response.status).toBe(200)
      const answer = JSON.parse(response.body) as { raw: string; value: string; inFlight: number }
      expect(answer.raw).toBe(sha(text))
      expect(answer.value).toBe(sha(JSON.stringify(JSON.parse(text.toString('utf8')))))
      expect(answer.inFlight).toBe(0)
      const record = seen.get('real-spill')
      if (record === undefined || !record.result.ok) throw new Error('not admitted')
      // The body really went through the resizable buffer, not the join.
      expect(record.result.raw?.buffer).toMatchObject({ resizable: true })
      expect(record.worst).toBeLessThanOrEqual(0)
    } finally {
      setSpillBytesForTests(SPILL)
    }
  })
})
