// The runnable examples (examples/*.ts), started on 127.0.0.1 as a reader would run them: each
// answers a JSON body with what it received and refuses depth 65 with 422 ERR_JSON_TOO_DEEP
// (so the route's echo never comes back).
import { describe, expect, it } from 'vitest'

const EXAMPLES = [
  ['fastify', '/notes', () => import('../examples/fastify.js')],
  ['hono', '/notes', () => import('../examples/hono.js')],
  ['koa', '/', () => import('../examples/koa.js')],
] as const

const post = (port: number, path: string, body: string) =>
  fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  })

describe.each(EXAMPLES)('examples/%s.ts', (_name, path, load) => {
  it('echoes an admitted body and refuses depth 65 with 422 ERR_JSON_TOO_DEEP', async () => {
    const { start } = await load()
    const running = await start(0)
    try {
      const ok = await post(running.port, path, '{"title":"hello"}')
      expect(ok.status).toBe(200)
      expect(await ok.json()).toEqual({ received: { title: 'hello' } })
      const deep = await post(running.port, path, `${'['.repeat(65)}${']'.repeat(65)}`)
      expect(deep.status).toBe(422)
      const refusal = (await deep.json()) as { code?: string; received?: unknown }
      expect(refusal.code).toBe('ERR_JSON_TOO_DEEP')
      expect(refusal.received).toBeUndefined()
    } finally {
      await running.close()
    }
  })
})
