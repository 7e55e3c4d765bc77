import { writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  callBody,
  MISBEHAVING,
  type RunningCli,
  recorded,
  recordFile,
  session,
  startCliPerTest,
  until,
} from './fixtures/run-gateway.js'

const startCli = startCliPerTest()
let running: RunningCli | undefined

const calls = (file: string, tool: string) =>
  recorded(file).filter(
    (m) => m.method === 'tools/call' && (m.params as { name?: string }).name === tool,
  )

function text(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text
}

async function gateway(args: readonly string[] = []) {
  const file = recordFile()
  running = await startCli([...args, '--', process.execPath, MISBEHAVING], { RECORD_FILE: file })
  return { file, call: await session(running.url) }
}

describe('MessagePipeline (through tollgate-gateway)', () => {
  it('refuses an argument key the schema does not name, naming pointer and keyword, and the upstream never sees the call', async () => {
    const { file, call } = await gateway()
    const answer = await call(callBody(1, 'echo', { message: 'hi', secretExtra: 'do-not-echo' }))
    const result = answer.body?.result as { isError?: boolean }
    expect(result.isError).toBe(true)
    expect(text(result)).toContain('unevaluatedProperties')
    expect(JSON.stringify(answer.body)).not.toContain('do-not-echo')
    expect(calls(file, 'echo')).toHaveLength(0)
    // The same call without the extra key goes through.
    const fine = await call(callBody(2, 'echo', { message: 'hi' }))
    expect(text(fine.body?.result)).toBe('echo:{"message":"hi"}')
    expect(calls(file, 'echo')).toHaveLength(1)
  })

  it('lets the unknown key through to the upstream when the tool is opted out (the control removed)', async () => {
    const dir = recordFile()
    const config = `${dir}.config.json`
    writeFileSync(
      config,
      JSON.stringify({
        routes: [{ path: '/mcp', anonymous: true }],
        tools: { openTools: ['echo'] },
      }),
    )
    const { file, call } = await gateway(['--config', config])
    const answer = await call(callBody(1, 'echo', { message: 'hi', secretExtra: 'x' }))
    expect(text(answer.body?.result)).toBe('echo:{"message":"hi","secretExtra":"x"}')
    expect(calls(file, 'echo')).toHaveLength(1)
  })

  it('refuses duplicate keys and __proto__ before parsing, and the upstream never sees them', async () => {
    const { file, call } = await gateway()
    const dup = await call(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a","message":"b"}}}',
    )
    expect(dup.status).toBe(422)
    expect(dup.body?.error).toMatchObject({
      code: -32700,
      data: { code: 'ERR_JSON_DUPLICATE_KEY' },
    })
    const proto = await call(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a","__proto__":{"x":1}}}}',
    )
    expect(proto.status).toBe(422)
    expect(proto.body?.error).toMatchObject({ code: -32700, data: { code: 'ERR_JSON_PROTO_KEY' } })
    expect(calls(file, 'echo')).toHaveLength(0)
  })

  it("forwards the re-serialized message it judged under its own id, never the caller's envelope", async () => {
    const { file, call } = await gateway()
    const raw =
      '{"jsonrpc":"2.0","id":"caller-id","method":"tools/call","extra":"envelope","params":{"name":"echo","arguments":{"message":"hi"}}}'
    const answer = await call(raw)
    expect(answer.body?.id).toBe('caller-id')
    const [seen] = calls(file, 'echo')
    expect(seen).toEqual({
      jsonrpc: '2.0',
      id: expect.any(Number),
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'hi' } },
    })
  })

  it('refuses a tools/call result over --max-result-bytes with an isError result, never truncating it', async () => {
    const { call } = await gateway(['--max-result-bytes', '4096'])
    const big = await call(callBody(1, 'big-result', { bytes: 5000 }))
    const result = big.body?.result as { isError?: boolean }
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/^ERR_JSON_TOO_LARGE: .*limit 3072/)
    expect(JSON.stringify(big.body)).not.toContain('bbbb')
    const small = await call(callBody(2, 'big-result', { bytes: 2000 }))
    expect(text(small.body?.result)).toBe('b'.repeat(2000))
  })

  it('passes the same result with the default budget (the control removed)', async () => {
    const { call } = await gateway()
    const big = await call(callBody(1, 'big-result', { bytes: 5000 }))
    expect(text(big.body?.result)).toBe('b'.repeat(5000))
  })

  it('refuses a resources/read result over --max-result-bytes with a JSON-RPC error', async () => {
    const { call } = await gateway(['--max-result-bytes', '4096'])
    const over = await call(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'resources/read',
        params: { uri: 'test://r?bytes=5000' },
      }),
    )
    expect(over.body?.error).toMatchObject({
      code: -32000,
      data: { code: 'ERR_JSON_TOO_LARGE', limit: 3072 },
    })
    const fine = await call(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'resources/read',
        params: { uri: 'test://r?bytes=100' },
      }),
    )
    expect(fine.body?.result).toMatchObject({ contents: [{ text: 'r'.repeat(100) }] })
  })

  it('refuses structuredContent that violates the outputSchema', async () => {
    const { call } = await gateway()
    const answer = await call(callBody(1, 'bad-output', {}))
    const result = answer.body?.result as { isError?: boolean; structuredContent?: unknown }
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toBeUndefined()
    expect(text(result)).toContain('/n fails type integer')
  })

  it('quarantines a tool whose schema names a network $ref: out of tools/list, refused, never reached', async () => {
    const { file, call } = await gateway()
    const list = await call('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    const names = toolNames(list.body)
    expect(names).not.toContain('network-ref')
    expect(names).toContain('echo')
    const answer = await call(callBody(2, 'network-ref', { x: 1 }))
    expect(answer.body?.result).toEqual({
      content: [{ type: 'text', text: 'Unknown tool' }],
      isError: true,
    })
    expect(calls(file, 'network-ref')).toHaveLength(0)
    expect(
      running?.logs().some((l) => l.event === 'tool_quarantined' && l.tool === 'network-ref'),
    ).toBe(true)
  })

  it('quarantines a tool whose description changed after list_changed, and calls to it never reach the upstream', async () => {
    const { file, call } = await gateway()
    await call(callBody(1, 'drift', {}))
    await until(() =>
      expect(running?.logs().some((l) => l.event === 'tool_drifted' && l.tool === 'echo')).toBe(
        true,
      ),
    )
    const list = await call('{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
    const names = toolNames(list.body)
    expect(names).not.toContain('echo')
    const answer = await call(callBody(3, 'echo', { message: 'hi' }))
    expect(answer.body?.result).toEqual({
      content: [{ type: 'text', text: 'Unknown tool' }],
      isError: true,
    })
    expect(calls(file, 'echo')).toHaveLength(0)
  })
})

function toolNames(body: Record<string, unknown> | undefined): string[] {
  const result = body?.result as { tools?: { name: string }[] } | undefined
  return (result?.tools ?? []).map((t) => t.name)
}
