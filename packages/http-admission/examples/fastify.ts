// A Fastify 5 server whose JSON bodies go through tollgate: `node examples/fastify.ts` (Node
// 22.6+ strips the types; or tsx), then POST JSON to http://127.0.0.1:3000/notes.
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { bodyAdmission } from '@tollgate/http-admission'
import { fastifyAdmission } from '@tollgate/http-admission/fastify'
import Fastify from 'fastify'

/** Starts the example on `port` (0: any free port) and returns the port and a way to stop it. */
export async function start(port = 3000) {
  const app = Fastify()
  // One control for the app: 1 MiB (each route's bodyLimit may lower it), depth 32.
  await app.register(fastifyAdmission(bodyAdmission({ maxBytes: 1024 * 1024, maxDepth: 32 })))
  app.post('/notes', async (request) => ({ received: request.body }))
  await app.listen({ port, host: '127.0.0.1' })
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { port } = await start(Number(process.env.PORT ?? 3000))
  console.log(`fastify example on http://127.0.0.1:${port}/notes`)
}
