// The preflight policies as top-level options of admission(), through a real http.Server: each
// refusal asserts the handler did not run, and the default shows what the policy prevents.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { httpPost } from '@tollgate/test-kit/http-client'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterEach, describe, expect, it } from 'vitest'
import { admission, type BodyAdmissionOptions, bodyAdmission } from '../src/index.js'

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

async function serve(options: BodyAdmissionOptions) {
  const handled: unknown[] = []
  const middleware = admission(bodyAdmission(options))
  running = await listen((req: IncomingMessage, res: ServerResponse) => {
    middleware(req, res, () => {
      const body = (req as IncomingMessage & { body?: unknown }).body
      handled.push(body)
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify(body))
    })
  })
  return { port: running.port, handled }
}

const send = (port: number, text: string) => httpPost(port, '/', Buffer.from(text))

describe('admission(): flat preflight policies', () => {
  it('refuses a repeated key with 422 ERR_JSON_DUPLICATE_KEY by default, and the handler does not run', async () => {
    const { port, handled } = await serve({})
    const res = await send(port, '{"role":"user","role":"admin"}')
    expect(res.status).toBe(422)
    expect(JSON.parse(res.body)).toMatchObject({ code: 'ERR_JSON_DUPLICATE_KEY' })
    expect(handled).toEqual([])
  })

  it('lets the last of two repeated keys win with duplicateKeys "allow" (the control is load-bearing)', async () => {
    const { port, handled } = await serve({ duplicateKeys: 'allow' })
    const res = await send(port, '{"role":"user","role":"admin"}')
    expect(res.status).toBe(200)
    expect(handled).toEqual([{ role: 'admin' }])
  })

  it('refuses a __proto__ key with 422 ERR_JSON_PROTO_KEY by default, and the handler does not run', async () => {
    const { port, handled } = await serve({})
    const res = await send(port, '{"__proto__":{"isAdmin":true}}')
    expect(res.status).toBe(422)
    expect(JSON.parse(res.body)).toMatchObject({ code: 'ERR_JSON_PROTO_KEY' })
    expect(handled).toEqual([])
  })

  it('hands a __proto__ key to the handler as an own key with protoKeys "allow" (the control is load-bearing)', async () => {
    const { port, handled } = await serve({ protoKeys: 'allow' })
    const res = await send(port, '{"__proto__":{"isAdmin":true}}')
    expect(res.status).toBe(200)
    expect(handled).toHaveLength(1)
    expect(Object.hasOwn(handled[0] as object, '__proto__')).toBe(true)
  })

  it('refuses a string one byte over maxStringBytes with 422 ERR_JSON_STRING_TOO_LONG and admits one at it', async () => {
    const { port, handled } = await serve({ maxStringBytes: 4 })
    expect((await send(port, '{"k":"abcd"}')).status).toBe(200)
    const res = await send(port, '{"k":"abcde"}')
    expect(res.status).toBe(422)
    expect(JSON.parse(res.body)).toMatchObject({ code: 'ERR_JSON_STRING_TOO_LONG', limit: 4 })
    expect(handled).toEqual([{ k: 'abcd' }])
  })
})
