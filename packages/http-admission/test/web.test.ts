import { gzipSync } from 'node:zlib'
import { expectRefused } from '@tollgate/test-kit/expect-refused'
import { describe, expect, it } from 'vitest'
import {
  admitWebRequest,
  bodyAdmission,
  createInFlightBudget,
  refusalResponse,
} from '../src/index.js'

const MARKER = 'MARKER-91d2-secret-token'

/** A web stream that sends `first` and then never ends (the client is still sending). */
function openStream(first: Uint8Array) {
  const state = { cancelled: false }
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first)
    },
    cancel() {
      state.cancelled = true
    },
  })
  return { stream, state }
}

const post = (
  body: string | Uint8Array | ReadableStream<Uint8Array> | null,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) =>
  // Node's global Request is undici's.
  new Request('http://127.0.0.1/notes', {
    method: 'POST',
    body,
    headers,
    duplex: 'half',
  } as RequestInit)

describe('admitWebRequest', () => {
  it("admits a JSON body from undici's Request", async () => {
    const result = await admitWebRequest(post('{"title":"a","tags":["x"]}'), bodyAdmission({}))
    expect(result).toMatchObject({ ok: true, value: { title: 'a', tags: ['x'] } })
  })

  it('refuses depth 65 with a 422 problem+json Response while the stream is still open', async () => {
    const { stream, state } = openStream(new TextEncoder().encode(`["${MARKER}",${'['.repeat(65)}`))
    const result = await admitWebRequest(post(stream), bodyAdmission({}))
    expectRefused(result, 'ERR_JSON_TOO_DEEP')
    expect(result.error).toMatchObject({ code: 'ERR_JSON_TOO_DEEP', limit: 64 })
    expect(result.response.status).toBe(422)
    expect(result.response.headers.get('content-type')).toBe('application/problem+json')
    const text = await result.response.text()
    expect(JSON.parse(text)).toMatchObject({ code: 'ERR_JSON_TOO_DEEP', status: 422, limit: 64 })
    expect(text).not.toContain(MARKER)
    expect(state.cancelled).toBe(true)
  })

  it('refuses a body over maxBytes with 413', async () => {
    const result = await admitWebRequest(
      post(JSON.stringify({ k: 'x'.repeat(100) })),
      bodyAdmission({
        maxBytes: 50,
      }),
    )
    expect(!result.ok && result.response.status).toBe(413)
    expect(!result.ok && result.error).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: 50 })
  })

  it('refuses invalid UTF-8 with 422', async () => {
    const result = await admitWebRequest(
      post(new Uint8Array([0x5b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x5d])),
      bodyAdmission({}),
    )
    expect(!result.ok && result.error.code).toBe('ERR_JSON_INVALID_UTF8')
  })

  it('passes a GET and a bodiless POST through', async () => {
    const get = await admitWebRequest(new Request('http://127.0.0.1/'), bodyAdmission({}))
    expect(get).toMatchObject({ ok: true, skipped: 'method', value: undefined })
    const empty = await admitWebRequest(post(null), bodyAdmission({}))
    expect(empty).toMatchObject({ ok: true, skipped: 'no-body' })
  })

  it('passes HEAD, DELETE and OPTIONS through with the body unread', async () => {
    for (const method of ['HEAD', 'DELETE', 'OPTIONS']) {
      const body = method === 'HEAD' ? null : '{"a":'
      const result = await admitWebRequest(
        new Request('http://127.0.0.1/', {
          method,
          body,
          headers: { 'content-type': 'application/json' },
        }),
        bodyAdmission({}),
      )
      expect(result).toMatchObject({ ok: true, skipped: 'method', value: undefined })
    }
  })

  it('refuses a non-JSON media type with 415', async () => {
    const result = await admitWebRequest(
      post('[]', { 'content-type': 'text/plain' }),
      bodyAdmission({}),
    )
    expect(!result.ok && result.response.status).toBe(415)
  })

  it('answers 503 with Retry-After when the budget is spent, and releases it', async () => {
    const budget = createInFlightBudget(10)
    const result = await admitWebRequest(
      post(`"${'a'.repeat(20)}"`),
      bodyAdmission({
        budget,
        retryAfterSeconds: 3,
      }),
    )
    expect(!result.ok && result.response.status).toBe(503)
    expect(!result.ok && result.response.headers.get('retry-after')).toBe('3')
    expect(budget.inFlight).toBe(0)
  })
})

describe('admitWebRequest: the head', () => {
  it('cancels the body stream unread when the head is refused (415, invalid length)', async () => {
    const text = openStream(new TextEncoder().encode('[1,'))
    const other = await admitWebRequest(
      post(text.stream, { 'content-type': 'text/plain' }),
      bodyAdmission({}),
    )
    expectRefused(other, 'ERR_BODY_MEDIA_TYPE')
    expect(other.response.status).toBe(415)
    const bad = openStream(new TextEncoder().encode('[1,'))
    const invalid = await admitWebRequest(
      post(bad.stream, { 'content-type': 'application/json', 'content-length': '1,2' }),
      bodyAdmission({}),
    )
    expectRefused(invalid, 'ERR_BODY_INVALID_LENGTH')
    expect(invalid.response.status).toBe(400)
    // ReadableStream#cancel runs the source's cancel in a microtask.
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(text.state.cancelled).toBe(true)
    expect(bad.state.cancelled).toBe(true)
  })

  it('passes a POST without a body through as no-body whatever its media type, not 415', async () => {
    const result = await admitWebRequest(
      post(null, { 'content-type': 'text/plain' }),
      bodyAdmission({}),
    )
    expect(result).toMatchObject({ ok: true, skipped: 'no-body', value: undefined })
  })

  it('answers an invalid Content-Length on a request without a body with 400, not a throw', async () => {
    const request = new Request('http://127.0.0.1/notes', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': 'abc' },
    })
    expect(request.body).toBe(null)
    const result = await admitWebRequest(request, bodyAdmission({}))
    expectRefused(result, 'ERR_BODY_INVALID_LENGTH')
    expect(result.response.status).toBe(400)
  })

  it('inflates a gzip body its Content-Encoding names', async () => {
    const result = await admitWebRequest(
      post(gzipSync('{"title":"a"}'), {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      }),
      bodyAdmission({}),
    )
    expect(result).toMatchObject({ ok: true, value: { title: 'a' } })
  })

  it('refuses a declared length past maxBytes with 413 before reading, and an aborted signal with ERR_BODY_ABORTED', async () => {
    const { stream } = openStream(new TextEncoder().encode('[1,'))
    const large = await admitWebRequest(
      post(stream, { 'content-type': 'application/json', 'content-length': '1000' }),
      bodyAdmission({ maxBytes: 50 }),
    )
    expectRefused(large, 'ERR_BODY_TOO_LARGE')
    expect(large.error).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', limit: 50 })
    expect(large.response.status).toBe(413)
    const controller = new AbortController()
    controller.abort()
    const aborted = await admitWebRequest(
      new Request('http://127.0.0.1/notes', {
        method: 'POST',
        body: openStream(new TextEncoder().encode('[1,')).stream,
        headers: { 'content-type': 'application/json' },
        signal: controller.signal,
        duplex: 'half',
      } as RequestInit),
      bodyAdmission({}),
    )
    expectRefused(aborted, 'ERR_BODY_ABORTED')
  })
})

describe('admitWebRequest deadlines', () => {
  it('refuses a stalled stream with 408 and cancels it', async () => {
    const { stream, state } = openStream(new TextEncoder().encode('[1,'))
    const result = await admitWebRequest(post(stream), bodyAdmission({ idleTimeoutMs: 20 }))
    expect(!result.ok && result.response.status).toBe(408)
    expect(!result.ok && result.error).toMatchObject({ code: 'ERR_BODY_TIMEOUT', limit: 20 })
    expect(state.cancelled).toBe(true)
  })
})

describe('refusalResponse', () => {
  it('renders a custom body and keeps the status and connection handling', async () => {
    const { AdmissionError } = await import('@tollgate/json-budget')
    const response = refusalResponse(new AdmissionError('ERR_BODY_TOO_LARGE', { limit: 4 }), {
      render: (error) => ({
        contentType: 'application/json',
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, data: error.code },
        }),
      }),
    })
    expect(response.status).toBe(413)
    expect(response.headers.get('connection')).toBe('close')
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, data: 'ERR_BODY_TOO_LARGE' },
    })
  })

  it('counts web requests against their principal and answers the share refusal with Retry-After', async () => {
    const budget = createInFlightBudget(1 << 20)
    const options = { budget, maxBodiesPerPrincipal: 1 }
    const keyed = { 'content-type': 'application/json', 'x-principal': 'a' }
    const { stream } = openStream(new TextEncoder().encode('[1,'))
    const held = admitWebRequest(
      post(stream, keyed),
      bodyAdmission({ ...options, idleTimeoutMs: 200 }),
      { principal: 'a' },
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    const second = await admitWebRequest(post('[]', keyed), bodyAdmission(options), {
      principal: 'a',
    })
    expectRefused(second, 'ERR_ADMISSION_PRINCIPAL_BUSY')
    expect(second.error).toMatchObject({ code: 'ERR_ADMISSION_PRINCIPAL_BUSY', limit: 1 })
    expect(second.response.status).toBe(503)
    expect(second.response.headers.get('retry-after')).toBe('1')
    const other = await admitWebRequest(
      post('[]', { 'content-type': 'application/json', 'x-principal': 'b' }),
      bodyAdmission(options),
      { principal: 'b' },
    )
    expect(other).toMatchObject({ ok: true, value: [] })
    expect((await held).ok).toBe(false)
  })
})
