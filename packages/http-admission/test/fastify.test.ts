// fastifyAdmission on Fastify's own server on 127.0.0.1: the bad-input table refused with the
// adapter (the route never runs), and, with Fastify's own parser instead, the rows Fastify does
// not stop reach the route. Sentinel: `reached`, the bodies the route saw.
import { head, RawClient, type RawResponse } from '@tollgate/test-kit/http-client'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { fastifyAdmission } from '../src/fastify.js'
import { bodyAdmission } from '../src/index.js'
import {
  BAD_INPUTS,
  CAP,
  codeOf,
  DEADLINE_MS,
  slowButFinished,
  tableControl,
} from './helpers/bad-inputs.js'

const apps: FastifyInstance[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()))
})

async function serve(
  adapter: boolean,
  options: FastifyServerOptions = {},
  control = tableControl(),
) {
  const app = Fastify(options)
  apps.push(app)
  if (adapter) await app.register(fastifyAdmission(control))
  const reached: unknown[] = []
  app.post('/', async (request) => {
    reached.push(request.body)
    return { ok: true }
  })
  // A route whose own bodyLimit is under the control's cap.
  app.post('/small', { bodyLimit: 64 }, async (request) => {
    reached.push(request.body)
    return { ok: true }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  return { port: typeof address === 'object' && address !== null ? address.port : 0, reached }
}

// An empty body under each framing, sent as exactly these bytes (`type` null: no header).
async function sendEmpty(
  port: number,
  framing: 'Content-Length: 0' | 'Transfer-Encoding: chunked',
  type: string | null = 'application/json',
): Promise<RawResponse> {
  const client = new RawClient(port)
  try {
    const lines = ['POST / HTTP/1.1', 'Host: 127.0.0.1', framing]
    if (type !== null) lines.push(`Content-Type: ${type}`)
    const end = framing === 'Content-Length: 0' ? '' : '0\r\n\r\n'
    await client.write(head(lines) + end)
    return await client.response()
  } finally {
    client.destroy()
  }
}

const FRAMINGS = ['Content-Length: 0', 'Transfer-Encoding: chunked'] as const

describe('fastifyAdmission', () => {
  it.each(FRAMINGS)(
    'refuses an empty application/json body (%s) with 400 FST_ERR_CTP_EMPTY_JSON_BODY, as Fastify does, and the route does not run',
    async (framing) => {
      const own = await serve(false)
      const ownAnswer = await sendEmpty(own.port, framing)
      const adapted = await serve(true)
      const answer = await sendEmpty(adapted.port, framing)
      for (const response of [ownAnswer, answer]) {
        expect(response.status).toBe(400)
        expect(JSON.parse(response.body)).toMatchObject({
          statusCode: 400,
          code: 'FST_ERR_CTP_EMPTY_JSON_BODY',
        })
      }
      expect(JSON.parse(answer.body)).toEqual(JSON.parse(ownAnswer.body))
      expect(adapted.reached).toEqual([])
      expect(own.reached).toEqual([])
    },
  )

  it('leaves request.body undefined for a POST without a type or a body, as Fastify does', async () => {
    const own = await serve(false)
    const adapted = await serve(true)
    expect((await sendEmpty(own.port, 'Content-Length: 0', null)).status).toBe(200)
    expect((await sendEmpty(adapted.port, 'Content-Length: 0', null)).status).toBe(200)
    expect(own.reached).toEqual([undefined])
    expect(adapted.reached).toEqual([undefined])
  })

  it.each(BAD_INPUTS)(
    'refuses $name with $status $code in the Fastify error shape, and the route does not run',
    async (row) => {
      const { port, reached } = await serve(true, { bodyLimit: 1024 * 1024 })
      const response = await row.send(port)
      expect(response?.status).toBe(row.status)
      expect(JSON.parse(response?.body ?? '{}')).toMatchObject({
        statusCode: row.status,
        code: row.code,
      })
      expect(response?.headers.connection).toBe('close')
      expect(reached).toEqual([])
    },
  )

  it('control: without the adapter, the Fastify parser lets depth, bad UTF-8, a repeated key, text/plain and a slow body through', async () => {
    const { port, reached } = await serve(false, { bodyLimit: CAP })
    const through = BAD_INPUTS.filter((row) => row.code !== 'ERR_BODY_TOO_LARGE')
    for (const row of through.filter((r) => r.code !== 'ERR_BODY_TIMEOUT')) {
      expect((await row.send(port))?.status, row.name).toBe(200)
    }
    expect((await slowButFinished(port))?.status).toBe(200)
    expect(reached).toHaveLength(through.length)
    // Fastify's own bodyLimit already stops the oversized rows.
    for (const row of BAD_INPUTS.filter((r) => r.code === 'ERR_BODY_TOO_LARGE')) {
      expect((await row.send(port))?.status, row.name).toBe(413)
    }
  })

  it('admits a body at the cap as request.body and honours a route bodyLimit under it', async () => {
    const { port, reached } = await serve(true)
    const at = `{"a":"${'x'.repeat(CAP - 8)}"}`
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: at,
    })
    expect(res.status).toBe(200)
    expect(reached).toEqual([JSON.parse(at)])
    const small = await fetch(`http://127.0.0.1:${port}/small`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"a":"${'x'.repeat(64)}"}`,
    })
    expect(small.status).toBe(413)
    expect(await small.json()).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', statusCode: 413 })
    expect(reached).toHaveLength(1)
  })

  it('keeps the Fastify __proto__ and constructor.prototype refusal even for a control that allows them', async () => {
    const allowing = bodyAdmission({ protoKeys: 'allow', timeoutMs: DEADLINE_MS })
    const { port, reached } = await serve(true, {}, allowing)
    for (const text of ['{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}']) {
      const res = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: text,
      })
      expect(res.status).toBe(422)
      expect(codeOf({ status: 422, headers: {}, body: await res.text() })).toBe(
        'ERR_JSON_PROTO_KEY',
      )
    }
    expect(reached).toEqual([])
  })

  it('control: with the Fastify poisoning checks set to ignore, the protoKeys of the control decides', async () => {
    const allowing = bodyAdmission({ protoKeys: 'allow', timeoutMs: DEADLINE_MS })
    const { port, reached } = await serve(
      true,
      { onProtoPoisoning: 'ignore', onConstructorPoisoning: 'ignore' },
      allowing,
    )
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"__proto__":{"x":1}}',
    })
    expect(res.status).toBe(200)
    expect(reached).toHaveLength(1)
  })
})
