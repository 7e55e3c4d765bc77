// A Hono server on Node whose JSON bodies go through tollgate: `node examples/hono.ts` (Node
// 22.6+ strips the types; or tsx), then POST JSON to http://127.0.0.1:3000/notes.
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { serve } from '@hono/node-server'
import { bodyAdmission } from '@tollgate/http-admission'
import { honoAdmission } from '@tollgate/http-admission/hono'
import { Hono } from 'hono'
import { validator } from 'hono/validator'

/** Starts the example on `port` (0: any free port) and returns the port and a way to stop it. */
export async function start(port = 3000) {
  const notes = bodyAdmission({ maxBytes: 64 * 1024, maxDepth: 8 })
  const app = new Hono()
  app.post(
    '/notes',
    honoAdmission(notes),
    // Hono's own validator still reads the body: the middleware seeded its cache.
    validator('json', (value) => value as Record<string, unknown>),
    (c) => c.json({ received: c.req.valid('json') }),
  )
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s))
  })
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { port } = await start(Number(process.env.PORT ?? 3000))
  console.log(`hono example on http://127.0.0.1:${port}/notes`)
}
