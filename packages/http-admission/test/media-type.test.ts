// Content-Type as RFC 9110 §8.3 writes it, through admission() on a real http.Server: the raw
// client sends each header byte for byte (no client library normalizes it), and every 415
// asserts the handler did not run.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { head, RawClient } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import { admission, type BodyAdmissionOptions, bodyAdmission } from '../src/index.js'
import { matchMediaType } from '../src/media-type.js'

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

const BODY = '{"a":1}'

async function serve(options: BodyAdmissionOptions = {}) {
  const handled: unknown[] = []
  const middleware = admission(bodyAdmission(options))
  running = await listen((req: IncomingMessage, res: ServerResponse) => {
    middleware(req, res, (error?: unknown) => {
      if (error !== undefined) {
        res.statusCode = 500
        res.end()
        return
      }
      handled.push((req as IncomingMessage & { body?: unknown }).body)
      res.setHeader('content-type', 'application/json')
      res.end('{"ok":true}')
    })
  })
  return { port: running.port, handled }
}

async function post(port: number, contentType: string | undefined) {
  const client = new RawClient(port)
  const lines = ['POST / HTTP/1.1', 'Host: 127.0.0.1', `Content-Length: ${BODY.length}`]
  if (contentType !== undefined) lines.push(`Content-Type: ${contentType}`)
  await client.write(head(lines) + BODY)
  const res = await client.response()
  client.destroy()
  return { status: res.status, code: res.status === 200 ? undefined : JSON.parse(res.body).code }
}

// [header, admitted] with the default types (application/json and */*+json).
const CASES: readonly (readonly [string, boolean])[] = [
  // A `;` inside a quoted value is part of the value, not a separator.
  ['application/json; foo="a;b"; charset=utf-8', true],
  ['application/json; foo="a;charset=latin1"', true],
  ['application/json; foo="a\\"b"; charset=utf-8', true],
  // A quoted charset is the same charset.
  ['application/json; charset="utf-8"', true],
  ['application/json; charset="UTF-8"', true],
  // `utf8` is the common alias of the UTF-8 label (WHATWG Encoding), sent by many clients.
  ['application/json; charset=utf8', true],
  ['application/json; charset=UTF8', true],
  // Type, subtype and parameter names compare case-insensitively.
  ['APPLICATION/JSON; CHARSET=UTF-8', true],
  ['Application/Vnd.Api+JSON', true],
  // Whitespace around `;` (OWS), and an empty parameter.
  ['application/json ; charset=utf-8', true],
  ['application/json;charset=utf-8', true],
  ['application/json;\tcharset=utf-8  ', true],
  ['application/json;', true],
  // Of repeated parameters the first counts (as WHATWG MIME Sniffing and util.MIMEType).
  ['application/json; charset=utf-8; charset=latin1', true],
  ['application/json; charset=latin1; charset=utf-8', false],
  // No subtype, no slash, a space inside the essence: no media type at all.
  ['application/', false],
  ['application', false],
  ['application /json', false],
  // A parameter without a value, or with an unclosed quote, is malformed.
  ['application/json; charset', false],
  ['application/json; charset=', false],
  ['application/json; charset="utf-8', false],
  // JSON is UTF-8: another charset is refused, not decoded.
  ['application/json; charset=latin1', false],
  ['application/json; charset=utf-16', false],
  ['application/json; charset="iso-8859-1"', false],
  // Not a JSON type, and the empty header.
  ['text/plain', false],
  ['', false],
]

describe('admission(): Content-Type (RFC 9110 §8.3)', () => {
  it.each(CASES)(
    '%j is admitted: %s (a refusal is 415 ERR_BODY_MEDIA_TYPE and the handler does not run)',
    async (contentType, admitted) => {
      const { port, handled } = await serve()
      const res = await post(port, contentType)
      if (admitted) {
        expect(res.status).toBe(200)
        expect(handled).toEqual([{ a: 1 }])
      } else {
        expect(res).toEqual({ status: 415, code: 'ERR_BODY_MEDIA_TYPE' })
        expect(handled).toEqual([])
      }
    },
  )

  it('refuses a body without Content-Type with 415, and the handler does not run', async () => {
    const { port, handled } = await serve()
    expect(await post(port, undefined)).toEqual({ status: 415, code: 'ERR_BODY_MEDIA_TYPE' })
    expect(handled).toEqual([])
  })

  it('admits text/plain and a missing Content-Type with types ["*/*"] (the control is load-bearing), but still refuses charset=latin1', async () => {
    const { port, handled } = await serve({ types: ['*/*'] })
    expect((await post(port, 'text/plain')).status).toBe(200)
    expect((await post(port, undefined)).status).toBe(200)
    expect(handled).toEqual([{ a: 1 }, { a: 1 }])
    expect(await post(port, 'text/plain; charset=latin1')).toEqual({
      status: 415,
      code: 'ERR_BODY_MEDIA_TYPE',
    })
    expect(handled).toHaveLength(2)
  })

  it('refuses a malformed Content-Type with 415 even with types ["*/*"], and admits an empty one there', async () => {
    const { port, handled } = await serve({ types: ['*/*'] })
    for (const malformed of ['application', 'application/', 'application/json; charset']) {
      expect(await post(port, malformed)).toEqual({ status: 415, code: 'ERR_BODY_MEDIA_TYPE' })
    }
    expect(handled).toEqual([])
    // An empty header names no type, as a missing one: `*/*` takes it.
    expect((await post(port, '')).status).toBe(200)
    expect(handled).toEqual([{ a: 1 }])
  })

  it('passes a POST with Content-Length: 0 through whatever its type: there is no body to refuse', async () => {
    const { port, handled } = await serve()
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
      const client = new RawClient(port)
      await client.write(
        head([
          'POST / HTTP/1.1',
          'Host: 127.0.0.1',
          'Content-Length: 0',
          `Content-Type: ${contentType}`,
        ]),
      )
      expect((await client.response()).status).toBe(200)
      client.destroy()
    }
    expect(handled).toEqual([undefined, undefined])
  })

  it('passes a malformed Content-Type unread with otherTypes "pass", as another media type', async () => {
    const { port, handled } = await serve({ otherTypes: 'pass' })
    expect((await post(port, 'application/json; charset')).status).toBe(200)
    expect(handled).toEqual([undefined])
  })
})

describe('matchMediaType', () => {
  it('matches type/*, */*+suffix and */* patterns, case-insensitively', () => {
    expect(matchMediaType('Application/Problem+JSON', ['*/*+json'])).toBe('match')
    expect(matchMediaType('application/jsonx', ['*/*+json'])).toBe('other')
    expect(matchMediaType('application/x+json', ['application/*'])).toBe('match')
    expect(matchMediaType('text/json', ['application/*'])).toBe('other')
    expect(matchMediaType('text/plain', ['*/*'])).toBe('match')
    expect(matchMediaType(undefined, ['*/*'])).toBe('match')
    expect(matchMediaType(undefined, ['application/json'])).toBe('other')
    // A web Request's headers.get gives null for a missing header, and '' for an empty one.
    expect(matchMediaType(null, ['*/*'])).toBe('match')
    expect(matchMediaType('', ['*/*'])).toBe('match')
    expect(matchMediaType(null, ['application/json'])).toBe('other')
  })

  it('checks the charset only of a matching type', () => {
    expect(matchMediaType('text/plain; charset=latin1', ['application/json'])).toBe('other')
    expect(() => matchMediaType('application/json; charset=latin1', ['application/json'])).toThrow(
      expect.objectContaining({ code: 'ERR_BODY_MEDIA_TYPE' }),
    )
  })

  it('answers the same for a repeated header as for a first one, whatever types it is matched against', () => {
    const json = Object.freeze(['application/json'])
    const text = Object.freeze(['text/plain'])
    const mutable = ['application/json']
    for (let round = 0; round < 3; round++) {
      expect(matchMediaType('application/json', json)).toBe('match')
      expect(matchMediaType('application/json', text)).toBe('other')
      expect(matchMediaType('application/json', mutable)).toBe('match')
      expect(() => matchMediaType('application/json; charset=latin1', json)).toThrow(
        expect.objectContaining({ code: 'ERR_BODY_MEDIA_TYPE' }),
      )
    }
    // An array that can change is matched afresh each time.
    mutable[0] = 'text/plain'
    expect(matchMediaType('application/json', mutable)).toBe('other')
  })
})
