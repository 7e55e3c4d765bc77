// The reference server refuses a repeated key and a `__proto__` key on both transports, driven
// through the real process by a raw client that ignores the published schemas. Sentinel: the
// `tool_invoked` audit line, which a refused call never writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RawSession, RawStdio } from './helpers/raw-client.js'
import { ALICE, type LiveServer, startServer } from './helpers/server.js'

let server: LiveServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server.stop()
})

// A search whose `arguments` carry the attack next to valid ones: a second `limit` out of the
// schema's range (JSON.parse would keep it), and a `__proto__` object.
const SEARCH = '"projectId":"atlas","query":"admission","limit":1'
const line = (id: number, args: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"knowledge.search","arguments":${args}}}`

const ATTACKS: [string, string, string][] = [
  ['a repeated key', `{${SEARCH},"limit":5000}`, 'ERR_JSON_DUPLICATE_KEY'],
  ['a __proto__ key', `{${SEARCH},"__proto__":{"admin":true}}`, 'ERR_JSON_PROTO_KEY'],
]

describe('the reference server', () => {
  it.each(ATTACKS)(
    'refuses %s over Streamable HTTP with 422 and its code, the tool never invoked',
    async (_name, args, code) => {
      const session = await RawSession.open(server.url('/mcp'), ALICE)
      const before = server.audit.named('tool_invoked').length
      const res = await session.post(line(1, args))
      expect(res.status).toBe(422)
      expect(JSON.parse(res.text).error.data.code).toBe(code)
      expect(server.audit.named('tool_invoked').length).toBe(before)
    },
  )

  it.each(ATTACKS)(
    'refuses %s over stdio with its code and keeps serving, the tool never invoked',
    async (_name, args, code) => {
      const stdio = new RawStdio()
      try {
        await stdio.initialize()
        stdio.write(`${line(1, args)}\n`)
        const refusal = JSON.parse(await stdio.waitFor((l) => l.includes(code)))
        expect(refusal.error.data.code).toBe(code)
        const served = JSON.parse(await stdio.request(JSON.parse(line(2, `{${SEARCH}}`))))
        expect(served.result.isError).toBeUndefined()
        expect(stdio.audit.named('tool_invoked').length).toBe(1)
      } finally {
        await stdio.stop()
      }
    },
  )
})
