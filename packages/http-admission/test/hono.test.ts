// honoAdmission on Hono's Node server (@hono/node-server) on 127.0.0.1: the bad-input table
// refused with the middleware (the handler never runs), `c.req.json()` and `validator('json')`
// still working behind it, and, without it, every row reaching the handler. Sentinel:
// `reached`, the bodies the handler saw.
import type { AddressInfo } from 'node:net'
import { type ServerType, serve as serveNode } from '@hono/node-server'
import { Hono } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { validator } from 'hono/validator'
import { afterEach, describe, expect, it } from 'vitest'
import { honoAdmission } from '../src/hono.js'
import { BAD_INPUTS, CAP, codeOf, slowButFinished, tableControl } from './helpers/bad-inputs.js'

const servers: ServerType[] = []
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
  )
})

async function serve(adapter: boolean) {
  const app = new Hono()
  const reached: unknown[] = []
  const refusals: unknown[] = []
  if (adapter) app.use('*', honoAdmission(tableControl()))
  app.post('/', async (c) => {
    reached.push(await c.req.json())
    return c.json({ ok: true })
  })
  app.post(
    '/validated',
    validator('json', (value) => value as { a?: unknown }),
    async (c) => {
      const body = c.req.valid('json')
      reached.push(body)
      return c.json({ text: await c.req.text(), a: body.a })
    },
  )
  app.onError((error, c) => {
    if (error instanceof HTTPException) {
      refusals.push(error.status)
      return error.getResponse()
    }
    return c.text('error', 500)
  })
  const server = await new Promise<ServerType>((resolve) => {
    const s = serveNode({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
  })
  servers.push(server)
  return { port: (server.address() as AddressInfo).port, reached, refusals }
}

describe('honoAdmission', () => {
  it.each(BAD_INPUTS)(
    'refuses $name with $status $code as an HTTPException, and the handler does not run',
    async (row) => {
      const { port, reached, refusals } = await serve(true)
      const response = await row.send(port)
      expect(response?.status).toBe(row.status)
      expect(response?.headers['content-type']).toBe('application/problem+json')
      expect(codeOf(response)).toBe(row.code)
      expect(refusals).toEqual([row.status])
      expect(reached).toEqual([])
    },
  )

  it('control: without the middleware, every row reaches the handler through c.req.json()', async () => {
    const { port, reached } = await serve(false)
    const fast = BAD_INPUTS.filter((row) => row.code !== 'ERR_BODY_TIMEOUT')
    for (const row of fast) {
      const response = await row.send(port)
      expect(response?.status, row.name).toBe(200)
    }
    expect((await slowButFinished(port))?.status).toBe(200)
    expect(reached).toHaveLength(fast.length + 1)
  })

  it('keeps c.req.json(), c.req.text() and validator("json") working on the admitted body', async () => {
    const { port, reached } = await serve(true)
    const text = `{"a":"${'é'.repeat(10)}"}`
    const res = await fetch(`http://127.0.0.1:${port}/validated`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ text, a: 'é'.repeat(10) })
    const plain = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"a":"${'x'.repeat(CAP - 8)}"}`,
    })
    expect(plain.status).toBe(200)
    expect(reached).toEqual([{ a: 'é'.repeat(10) }, { a: 'x'.repeat(CAP - 8) }])
  })
})
