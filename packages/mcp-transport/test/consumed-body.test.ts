// mcpExpressHandler behind a body parser that already read the body (`app.use(express.json())`)
// on real Express 4 and 5 apps on 127.0.0.1: the misconfiguration is named (a 500 through the
// app's error handler, a McpBodyAlreadyReadError, a process warning written once), not passed
// off as a client's short body. Sentinel: `seen`, what the MCP target ran.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import { createInFlightBudget } from '@tollgate/http-admission'
import { rawPost } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { MCP_POST_HEADERS as HEADERS } from '@tollgate/test-kit/mcp-initialize'
import express5 from 'express'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMcpHttpAdmission,
  McpBodyAlreadyReadError,
  mcpBodyAdmission,
  mcpExpressHandler,
} from '../src/index.js'
import { echoTarget } from './helpers/echo-target.js'

// Express 4 is a dev dependency of @tollgate/http-admission (alias `express4`), loaded from
// there so both major versions run the same test.
const express4 = createRequire(new URL('../../http-admission/package.json', import.meta.url))(
  'express4',
) as typeof express5

type Handler = (req: IncomingMessage, res: ServerResponse, next: (e?: unknown) => void) => void

let running: Running[] = []
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()))
  running = []
})

const CALL = Buffer.from(
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"abc"}}}',
)

/** An Express app of `factory` with `parsers` in front of the MCP route, and its error handler. */
async function serve(factory: typeof express5, parsers: Handler[]) {
  const { seen, target } = echoTarget()
  const errors: unknown[] = []
  const app = factory()
  for (const parser of parsers) app.use(parser as never)
  app.all(
    '/mcp',
    mcpExpressHandler(
      target,
      createMcpHttpAdmission({
        body: mcpBodyAdmission({ budget: createInFlightBudget(1 << 20) }),
      }),
    ) as never,
  )
  app.use(((error: unknown, _req: unknown, res: ServerResponse, _next: unknown) => {
    errors.push(error)
    res.statusCode = 500
    res.end()
  }) as never)
  const server = await listen(app as never)
  running.push(server)
  return { port: server.port, seen, errors }
}

describe('McpBodyAlreadyReadError', () => {
  it('names the parser to remove on Express 4 and 5, writes one warning for many requests, and the target never runs', async () => {
    const warnings: Error[] = []
    const onWarning = (w: Error) => {
      if ((w as { code?: unknown }).code === 'ERR_MCP_BODY_ALREADY_READ') warnings.push(w)
    }
    process.on('warning', onWarning)
    try {
      for (const factory of [express5, express4]) {
        const { port, seen, errors } = await serve(factory, [factory.json() as Handler])
        for (let i = 0; i < 2; i++) {
          const response = await rawPost(port, HEADERS, CALL)
          expect(response.status).toBe(500)
        }
        expect(errors).toHaveLength(2)
        for (const error of errors) {
          expect(error).toBeInstanceOf(McpBodyAlreadyReadError)
          expect(error).toMatchObject({
            name: 'McpBodyAlreadyReadError',
            code: 'ERR_MCP_BODY_ALREADY_READ',
          })
          expect((error as Error).message).toContain('remove express.json()')
        }
        expect(seen).toEqual({ transports: 0, echo: 0 })
      }
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings).toHaveLength(1)
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('control: without the parser in front, the same call is answered on both versions', async () => {
    for (const factory of [express5, express4]) {
      const { port, seen, errors } = await serve(factory, [])
      const response = await rawPost(port, HEADERS, CALL)
      expect(response.status).toBe(200)
      expect(JSON.parse(response.body).result.content[0].text).toBe('len:3')
      expect(errors).toEqual([])
      expect(seen.echo).toBe(1)
    }
  })
})
