// json() against express.json() of the same Express version, each in a real Express app on
// 127.0.0.1: body-parser 1.x (Express 4) and 2.x (Express 5) are the oracles, so what `req.body`
// is after each parser is compared with what the real one sets, not with a value written here.
import type { Server } from 'node:http'
import { head, httpPost, RawClient } from '@tollgate/test-kit/http-client'
import express5 from 'express'
import express4 from 'express4'
import { afterEach, describe, expect, it } from 'vitest'
import { json } from '../src/index.js'

type Parser = (req: never, res: never, next: (err?: unknown) => void) => void
type ExpressFactory = () => {
  use(handler: Parser): unknown
  all(path: string, handler: (req: { body?: unknown }, res: ResLike) => void): unknown
  listen(port: number, host: string, done: () => void): Server
}
interface ResLike {
  status(code: number): ResLike
  json(value: unknown): void
}

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
  )
})

/** An Express app with `parser` in front; the route answers what `req.body` is. */
async function serve(factory: ExpressFactory, parser: Parser) {
  const app = factory()
  const reached: string[] = []
  app.use(parser)
  app.all('/', (req, res) => {
    const shown = req.body === undefined ? 'undefined' : JSON.stringify(req.body)
    reached.push(shown)
    res.status(200).json({ body: shown })
  })
  app.use(((err: { status?: number; type?: string }, _req: never, res: ResLike, _next: never) => {
    res.status(err.status ?? 500).json({ type: err.type })
  }) as unknown as Parser)
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  servers.push(server)
  const address = server.address()
  return { port: typeof address === 'object' && address !== null ? address.port : 0, reached }
}

/** A request with no body, or a body of another media type, as a raw client sends it. */
async function bodyOf(port: number, lines: string[], body = ''): Promise<string> {
  const client = new RawClient(port)
  try {
    await client.write(head(lines) + body)
    const res = await client.response()
    return (JSON.parse(res.body) as { body: string }).body
  } finally {
    client.destroy()
  }
}

const versions: [string, ExpressFactory][] = [
  ['Express 4 (body-parser 1.x)', express4 as unknown as ExpressFactory],
  ['Express 5 (body-parser 2.x)', express5 as unknown as ExpressFactory],
]

describe('json', () => {
  describe.each(versions)('on %s', (_name, factory) => {
    const cases: [string, string[], string][] = [
      ['a GET without a body', ['GET / HTTP/1.1', 'Host: x', 'Connection: close'], ''],
      [
        'a POST of another media type',
        [
          'POST / HTTP/1.1',
          'Host: x',
          'Content-Type: text/plain',
          'Content-Length: 2',
          'Connection: close',
        ],
        'hi',
      ],
      [
        'a POST without a body',
        ['POST / HTTP/1.1', 'Host: x', 'Content-Length: 0', 'Connection: close'],
        '',
      ],
    ]
    it.each(cases)('sets req.body as express.json() does for %s', async (_case, lines, body) => {
      const ours = await serve(factory, json() as unknown as Parser)
      const theirs = await serve(factory, (factory as unknown as { json(): Parser }).json())
      const expected = await bodyOf(theirs.port, lines, body)
      expect(await bodyOf(ours.port, lines, body)).toBe(expected)
      expect(ours.reached).toEqual([expected])
    })

    it('admits a repeated key and a __proto__ key by default, as express.json() does', async () => {
      const ours = await serve(factory, json() as unknown as Parser)
      const theirs = await serve(factory, (factory as unknown as { json(): Parser }).json())
      for (const text of ['{"role":"user","role":"admin"}', '{"__proto__":{"isAdmin":true}}']) {
        const a = await httpPost(ours.port, '/', Buffer.from(text))
        const b = await httpPost(theirs.port, '/', Buffer.from(text))
        expect(a.status).toBe(200)
        expect(a.body).toBe(b.body)
      }
    })

    it('refuses them with 400 entity.parse.failed under duplicateKeys and protoKeys "refuse", and the route does not run', async () => {
      const ours = await serve(
        factory,
        json({ duplicateKeys: 'refuse', protoKeys: 'refuse' }) as unknown as Parser,
      )
      for (const text of ['{"role":"user","role":"admin"}', '{"__proto__":{"isAdmin":true}}']) {
        const res = await httpPost(ours.port, '/', Buffer.from(text))
        expect(res.status).toBe(400)
        expect(JSON.parse(res.body)).toEqual({ type: 'entity.parse.failed' })
      }
      expect(ours.reached).toEqual([])
    })
  })

  it('differs between the versions where body-parser does (the check is not vacuous)', async () => {
    const lines = ['GET / HTTP/1.1', 'Host: x', 'Connection: close']
    const on4 = await serve(versions[0]![1], json() as unknown as Parser)
    const on5 = await serve(versions[1]![1], json() as unknown as Parser)
    expect(await bodyOf(on4.port, lines)).toBe('{}')
    expect(await bodyOf(on5.port, lines)).toBe('undefined')
  })
})
