import type { IncomingMessage, ServerResponse } from 'node:http'
import { AdmissionError } from '@tollgate/json-budget'
import { httpPost } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import {
  admitNodeRequest,
  type BodyAdmissionOptions,
  bodyAdmission,
  createInFlightBudget,
  refusalResponse,
  renderProblem,
  sendRefusal,
  toProblem,
} from '../src/index.js'

// The headers of a refusal are part of its contract (sendRefusal's and refusalResponse's
// TSDoc): a shared cache must never store one (`Cache-Control: no-store`), only a 503 says when
// to retry, and headers that describe another representation are dropped while the app's own
// (CORS) stay.

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

/** A server that sets headers before admission (as earlier middleware would) and refuses. */
async function serve(options: BodyAdmissionOptions, send: BodyAdmissionOptions = {}) {
  const body = bodyAdmission(options)
  let handled = 0
  running = await listen(async (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('Access-Control-Allow-Origin', '*')
    res.setHeader('ETag', '"v1"')
    res.setHeader('Last-Modified', 'Tue, 01 Dec 2026 00:00:00 GMT')
    res.setHeader('Content-Encoding', 'gzip')
    res.setHeader('Content-Range', 'bytes 0-1/2')
    const result = await admitNodeRequest(req, body)
    if (!result.ok) {
      sendRefusal(
        res,
        result.error,
        send.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: send.retryAfterSeconds },
      )
      return
    }
    handled++
    res.end('handled')
  })
  return { port: running.port, handled: () => handled }
}

describe('sendRefusal headers', () => {
  it('answers a 413 with problem+json, no-store, Connection: close and its byte length, drops the stale headers and keeps CORS', async () => {
    const server = await serve({ maxBytes: 8 })
    const response = await httpPost(server.port, '/', Buffer.from('{"k":"0123456789"}'))
    expect(response.status).toBe(413)
    expect(response.headers['content-type']).toBe('application/problem+json')
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.headers.connection).toBe('close')
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body))
    expect(response.headers['retry-after']).toBeUndefined()
    expect(response.headers['access-control-allow-origin']).toBe('*')
    for (const stale of [
      'etag',
      'last-modified',
      'content-encoding',
      'content-range',
      'transfer-encoding',
    ]) {
      expect(response.headers[stale], stale).toBeUndefined()
    }
    expect(JSON.parse(response.body)).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: 8 })
    expect(server.handled()).toBe(0)
  })

  it('drops a Transfer-Encoding set before the refusal, which is framed by its Content-Length alone', async () => {
    running = await listen((_req: IncomingMessage, res: ServerResponse) => {
      res.setHeader('Transfer-Encoding', 'chunked')
      sendRefusal(res, new AdmissionError('ERR_BODY_TOO_LARGE', { limit: 8 }))
    })
    const response = await httpPost(running.port, '/', Buffer.from('{}'))
    expect(response.status).toBe(413)
    expect(response.headers['transfer-encoding']).toBeUndefined()
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body))
    expect(JSON.parse(response.body)).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: 8 })
  })

  it('answers a 503 ERR_ADMISSION_BUSY with Retry-After: 1 by default and the seconds given', async () => {
    for (const [seconds, expected] of [
      [undefined, '1'],
      [7, '7'],
    ] as const) {
      const server = await serve(
        { budget: createInFlightBudget(4) },
        seconds === undefined ? {} : { retryAfterSeconds: seconds },
      )
      const response = await httpPost(server.port, '/', Buffer.from('[1,2,3,4,5]'))
      expect(response.status).toBe(503)
      expect(response.headers['retry-after']).toBe(expected)
      expect(response.headers['cache-control']).toBe('no-store')
      expect(JSON.parse(response.body)).toMatchObject({ code: 'ERR_ADMISSION_BUSY', limit: 4 })
      expect(server.handled()).toBe(0)
      await running?.close()
      running = undefined
    }
  })
})

describe('refusalResponse headers', () => {
  it('sends no-store, Connection: close and problem+json, and Retry-After only on a 503 (1 by default)', async () => {
    const large = refusalResponse(new AdmissionError('ERR_BODY_TOO_LARGE', { limit: 4 }))
    expect(large.status).toBe(413)
    expect(large.headers.get('cache-control')).toBe('no-store')
    expect(large.headers.get('connection')).toBe('close')
    expect(large.headers.get('content-type')).toBe('application/problem+json')
    expect(large.headers.get('retry-after')).toBeNull()
    expect(await large.json()).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: 4 })

    const busy = refusalResponse(new AdmissionError('ERR_ADMISSION_BUSY', { limit: 9 }))
    expect(busy.status).toBe(503)
    expect(busy.headers.get('retry-after')).toBe('1')
    const later = refusalResponse(new AdmissionError('ERR_ADMISSION_PRINCIPAL_BUSY'), {
      retryAfterSeconds: 5,
    })
    expect(later.status).toBe(503)
    expect(later.headers.get('retry-after')).toBe('5')
  })
})

describe('toProblem', () => {
  it('types the problem by its code, answers a client abort as 400, and has no limit key when the code has none', () => {
    const aborted = toProblem(new AdmissionError('ERR_BODY_ABORTED'))
    expect(aborted).toStrictEqual({
      type: 'urn:tollgate:error:ERR_BODY_ABORTED',
      title: 'Client Closed Request',
      status: 400,
      code: 'ERR_BODY_ABORTED',
      detail: expect.any(String),
    })
    expect(Object.keys(aborted)).not.toContain('limit')
    const large = renderProblem(new AdmissionError('ERR_BODY_TOO_LARGE', { limit: 4 }))
    expect(large.contentType).toBe('application/problem+json')
    expect(JSON.parse(large.body as string)).toStrictEqual({
      type: 'urn:tollgate:error:ERR_BODY_TOO_LARGE',
      title: 'Payload Too Large',
      status: 413,
      code: 'ERR_BODY_TOO_LARGE',
      detail: expect.any(String),
      limit: 4,
    })
  })
})
