// koaAdmission on Koa's own server on 127.0.0.1: the bad-input table refused with the
// middleware (later middleware never runs), and, with a hand-written reader in its place (the
// usual `for await (const chunk of ctx.req)` then JSON.parse), every row reaching the route.
// Sentinel: `reached`, the bodies the route saw.
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import { afterEach, describe, expect, it } from 'vitest'
import { type KoaAdmittedRequest, koaAdmission } from '../src/koa.js'
import { BAD_INPUTS, CAP, codeOf, slowButFinished, tableControl } from './helpers/bad-inputs.js'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
  )
})

async function serve(adapter: boolean) {
  const app = new Koa()
  const reached: unknown[] = []
  if (adapter) {
    app.use(koaAdmission(tableControl()))
  } else {
    app.use(async (ctx, next) => {
      const parts: Buffer[] = []
      for await (const part of ctx.req) parts.push(part as Buffer)
      ;(ctx.request as KoaAdmittedRequest).body = JSON.parse(Buffer.concat(parts).toString('utf8'))
      await next()
    })
  }
  app.use((ctx) => {
    reached.push((ctx.request as KoaAdmittedRequest).body)
    ctx.body = { ok: true }
  })
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  servers.push(server)
  return { port: (server.address() as AddressInfo).port, reached }
}

describe('koaAdmission', () => {
  it.each(BAD_INPUTS)(
    'refuses $name with $status $code, closing, and later middleware does not run',
    async (row) => {
      const { port, reached } = await serve(true)
      const response = await row.send(port)
      expect(response?.status).toBe(row.status)
      expect(response?.headers['content-type']).toBe('application/problem+json')
      expect(response?.headers.connection).toBe('close')
      expect(codeOf(response)).toBe(row.code)
      expect(reached).toEqual([])
    },
  )

  it('control: with a hand-written reader instead, every row reaches the route', async () => {
    const { port, reached } = await serve(false)
    const fast = BAD_INPUTS.filter((row) => row.code !== 'ERR_BODY_TIMEOUT')
    for (const row of fast) expect((await row.send(port))?.status, row.name).toBe(200)
    expect((await slowButFinished(port))?.status).toBe(200)
    expect(reached).toHaveLength(fast.length + 1)
  })

  it('admits a body at the cap as ctx.request.body', async () => {
    const { port, reached } = await serve(true)
    const text = `{"a":"${'x'.repeat(CAP - 8)}"}`
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
    })
    expect(res.status).toBe(200)
    expect(reached).toEqual([JSON.parse(text)])
  })
})
