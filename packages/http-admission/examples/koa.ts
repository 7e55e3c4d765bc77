// A Koa server whose JSON bodies go through tollgate: `node examples/koa.ts` (Node 22.6+ strips
// the types; or tsx), then POST JSON to http://127.0.0.1:3000/.
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { bodyAdmission } from '@tollgate/http-admission'
import { type KoaAdmittedRequest, koaAdmission } from '@tollgate/http-admission/koa'
import Koa from 'koa'

/** Starts the example on `port` (0: any free port) and returns the port and a way to stop it. */
export async function start(port = 3000) {
  const app = new Koa()
  app.use(koaAdmission(bodyAdmission({ maxBytes: 1024 * 1024 })))
  app.use((ctx) => {
    ctx.body = { received: (ctx.request as KoaAdmittedRequest).body ?? null }
  })
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s))
  })
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { port } = await start(Number(process.env.PORT ?? 3000))
  console.log(`koa example on http://127.0.0.1:${port}/`)
}
