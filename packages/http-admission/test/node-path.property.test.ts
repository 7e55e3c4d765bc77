// The node:http path end to end, differentially: admission() and json() on a real http.Server
// on 127.0.0.1 against JSON.parse (and a strict UTF-8 decode) of the bytes the client sent,
// for any JSON value or any bytes, split into any chunks on the wire, with and without
// Content-Length, gzip included. This path hands the body's promise back without an async
// wrapper, arms its deadline timer lazily and reuses the last Content-Type outcome; whatever
// the chunking, the outcome must be the one the bytes alone decide.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { gzipSync } from 'node:zlib'
import { fc, test } from '@fast-check/vitest'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { strictJsonParse } from '@tollgate/test-kit/strict-json'
import { afterAll, beforeAll, describe, expect } from 'vitest'
import { type AdmissionMiddleware, admission, bodyAdmission, json } from '../src/index.js'

interface Outcome {
  readonly status: number
  /** What the handler saw in req.body, or undefined when the handler did not run. */
  readonly body?: unknown
}

const handled = new Map<string, unknown>()
let running: Running | undefined

// One server for every run: the route's middleware is picked by path.
const routes: Record<string, AdmissionMiddleware> = {
  '/admission': admission(bodyAdmission({ strict: false })),
  '/json': json({ strict: false }),
}

beforeAll(async () => {
  running = await listen((req: IncomingMessage, res: ServerResponse) => {
    const middleware = routes[req.url ?? ''] as AdmissionMiddleware
    middleware(req, res, (error?: unknown) => {
      if (error !== undefined) {
        const status = (error as { status?: number }).status ?? 500
        res.statusCode = status
        res.setHeader('connection', 'close')
        res.end()
        return
      }
      const id = req.headers['x-run'] as string
      handled.set(id, (req as IncomingMessage & { body?: unknown }).body)
      res.end('ok')
    })
  })
})
afterAll(async () => {
  await running?.close()
})

let runs = 0

/** Sends `bytes` in pieces cut at `cuts`, each piece written after the last one left. */
function send(
  path: string,
  bytes: Buffer,
  cuts: number[],
  framing: { length: boolean; gzip: boolean },
): Promise<Outcome> {
  const id = String(runs++)
  const wire = framing.gzip ? gzipSync(bytes) : bytes
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'x-run': id,
  }
  if (framing.length) headers['content-length'] = wire.length
  else headers['transfer-encoding'] = 'chunked'
  if (framing.gzip) headers['content-encoding'] = 'gzip'
  const points = [...new Set(cuts.map((c) => c % (wire.length + 1)))].sort((a, b) => a - b)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: running?.port, method: 'POST', path, headers, agent: false },
      (res) => {
        res.resume()
        res.on('end', () =>
          resolve(
            handled.has(id)
              ? { status: res.statusCode ?? 0, body: handled.get(id) }
              : { status: res.statusCode ?? 0 },
          ),
        )
      },
    )
    req.on('error', reject)
    void (async () => {
      let at = 0
      for (const cut of points) {
        req.write(wire.subarray(at, cut))
        at = cut
        // A turn of the event loop between pieces, so they reach the server as separate reads.
        await new Promise((r) => setTimeout(r, 0))
      }
      req.end(wire.subarray(at))
    })()
  })
}

const framings = fc.record({ length: fc.boolean(), gzip: fc.boolean() })
const paths = fc.constantFrom('/admission', '/json')

describe('the node:http path', () => {
  test.prop(
    [fc.jsonValue({ maxDepth: 5 }), fc.array(fc.nat(), { maxLength: 6 }), framings, paths],
    {
      numRuns: 60,
    },
  )(
    'admits any JSON text, split anywhere on the wire, as the value JSON.parse gives',
    async (value, cuts, framing, path) => {
      const text = JSON.stringify(value)
      const outcome = await send(path, Buffer.from(text), cuts, framing)
      expect(outcome.status).toBe(200)
      expect(outcome.body).toStrictEqual(JSON.parse(text))
    },
  )

  test.prop(
    [
      fc.uint8Array({ minLength: 1, maxLength: 48 }),
      fc.array(fc.nat(), { maxLength: 4 }),
      framings,
      paths,
    ],
    { numRuns: 60 },
  )(
    'admits arbitrary bytes exactly when a strict UTF-8 decode and JSON.parse accept them, and otherwise the handler does not run',
    async (bytes, cuts, framing, path) => {
      const expected = strictJsonParse(bytes)
      const outcome = await send(path, Buffer.from(bytes), cuts, framing)
      if (expected.ok) {
        expect(outcome.status).toBe(200)
        expect(outcome.body).toStrictEqual(expected.value)
      } else {
        // 422 from admission(), 400 entity.parse.failed from json(); never the handler.
        expect(outcome.status).toBe(path === '/admission' ? 422 : 400)
        expect(outcome).not.toHaveProperty('body')
      }
    },
  )
})
