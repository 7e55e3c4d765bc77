// Through real child processes: test/fixtures/stdio-server.mjs runs an SDK McpServer over the
// built BoundedStdioServerTransport (or the SDK's own StdioServerTransport, the control) and
// these tests write raw bytes to its stdin.
import { afterEach, describe, expect, it } from 'vitest'
import { BOUNDED_STDIO_DEFAULTS, resolveBoundedStdioOptions } from '../src/index.js'
import { type Msg, StdioChild } from './helpers/stdio-child.js'

const MiB = 1024 * 1024
// 64 MiB through a child's pipe: seconds on an idle machine, past 30 s (the default timeout)
// on a loaded 2-core CI machine. A deadline, not a timing: nothing asserts how long it took.
const BIG = { timeout: 180_000 }
const MARKER = 'MARKER_7f3a9c'
const children: StdioChild[] = []

async function start(args: string[]): Promise<StdioChild> {
  const child = await StdioChild.start(args)
  children.push(child)
  return child
}

afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => c.stop()))
})

/** A tools/call line whose arguments nest `levels` arrays under `nest` (depth = 3 + levels). */
function nestedCall(id: number, levels: number): string {
  const nest = `${'['.repeat(levels)}${']'.repeat(levels)}`
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","nest":${nest}}}}\n`
}

/** The bytes of a tools/call line carrying an invalid UTF-8 byte (0xFF) inside a string. */
function invalidUtf8Call(id: number): Buffer {
  return Buffer.concat([
    Buffer.from(
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"${MARKER}`,
    ),
    Buffer.from([0xff]),
    Buffer.from('"}}}\n'),
  ])
}

const BIG_HEAD =
  '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"'
const BIG_TAIL = '"}}}\n'

function parseError(m: Msg): boolean {
  return m.id === null && m.error?.code === -32700
}

describe('BoundedStdioServerTransport', () => {
  it('answers a malformed line with -32700 under the id its bytes name, then serves the next request', async () => {
    const child = await start(['bounded'])
    child.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call",${MARKER}\n`)
    child.call(2, 'echo', { text: 'ok' })
    const served = await child.response(2)
    expect(served.result.content[0].text).toBe('len:2')
    expect(child.refusals()).toEqual([
      { jsonrpc: '2.0', id: 1, error: expect.objectContaining({ code: -32700 }) },
    ])
    expect(child.refusals()[0].error.data.code).toBe('ERR_JSON_SYNTAX')
    expect(child.raw).not.toContain(MARKER)
  })

  it('answers an invalid UTF-8 line with ERR_JSON_INVALID_UTF8 and never runs the tool', async () => {
    const child = await start(['bounded'])
    child.write(invalidUtf8Call(1))
    const stats = await child.stats(2)
    expect(stats.echoCalls).toBe(0)
    const [refusal] = child.refusals()
    expect(refusal.id).toBe(1)
    expect(refusal.error.code).toBe(-32700)
    expect(refusal.error.data.code).toBe('ERR_JSON_INVALID_UTF8')
    expect(child.raw).not.toContain(MARKER)
  })

  it('answers a depth-65 line (envelope included) with ERR_JSON_TOO_DEEP and serves depth 64', async () => {
    const child = await start(['bounded'])
    child.write(nestedCall(1, 62))
    child.write(nestedCall(2, 61))
    const served = await child.response(2)
    expect(served.result.content[0].text).toBe('len:1')
    const refusals = child.refusals()
    expect(refusals).toHaveLength(1)
    expect(refusals[0].id).toBe(1)
    expect(refusals[0].error.data).toMatchObject({ code: 'ERR_JSON_TOO_DEEP', limit: 64 })
    expect((await child.stats(3)).echoCalls).toBe(1)
  })

  it('counts the JSON-RPC envelope against the node limit', async () => {
    // 17 nodes: the envelope holds 15 of them, the arguments {"text":"a","n":[]} only 5.
    const child = await start(['bounded', '--max-nodes=17'])
    const line = (id: number, n: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","n":${n}}}}\n`
    child.write(line(1, '[1]'))
    child.write(line(2, '[]'))
    expect((await child.response(2)).result.content[0].text).toBe('len:1')
    const refusals = child.refusals()
    expect(refusals).toHaveLength(1)
    expect(refusals[0].id).toBe(1)
    expect(refusals[0].error.data).toMatchObject({ code: 'ERR_JSON_TOO_MANY_NODES', limit: 17 })
  })

  it('frames a request split across many writes, inside a UTF-8 sequence too', async () => {
    const child = await start(['bounded'])
    const bytes = Buffer.from(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'héllo€' } } })}\n`,
    )
    for (let i = 0; i < bytes.length; i += 3) {
      child.write(bytes.subarray(i, i + 3))
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    expect((await child.response(1)).result.content[0].text).toBe('len:6')
    expect(child.nullErrors()).toEqual([])
  })

  it('accepts CRLF line endings', async () => {
    const child = await start(['bounded'])
    child.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'abc' } } })}\r\n`,
    )
    expect((await child.response(1)).result.content[0].text).toBe('len:3')
    expect(child.nullErrors()).toEqual([])
  })

  it('answers valid JSON that is not JSON-RPC with -32600 and reads on', async () => {
    const child = await start(['bounded'])
    child.write(`{"jsonrpc":"2.0","id":1,"${MARKER}":true,"method":"ping"}\n`)
    child.send({ jsonrpc: '2.0', id: 2, method: 'ping' })
    await child.response(2)
    expect(child.refusals().map((m) => [m.id, m.error.code])).toEqual([[1, -32600]])
    expect(child.raw).not.toContain(MARKER)
  })

  it('reads a line of exactly maxLineBytes and ends the stream one byte past it', async () => {
    const child = await start(['bounded', '--max-line-bytes=1024'])
    const head =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"'
    const fill = 1024 - head.length - BIG_TAIL.length
    child.write(`${head}${'x'.repeat(fill)}${BIG_TAIL}`)
    expect((await child.response(1)).result.content[0].text).toBe(`len:${fill}`)
    child.write(`${head.replace('"id":1', '"id":2')}${'x'.repeat(fill + 1)}${BIG_TAIL}`)
    expect(await child.exited).toBe(0)
    // Its id is within the first 1024 bytes, so the refusal answers it; nothing else does.
    expect(child.messages.filter((m) => m.id === 2).map((m) => m.error)).toEqual([
      expect.objectContaining({
        code: -32000,
        data: { code: 'ERR_LINE_TOO_LARGE', limit: 1024 },
      }),
    ])
    expect(child.refusals()).toHaveLength(1)
  })

  it(
    'ends the input stream at a 64 MiB + 1 byte line after answering the lines before it',
    BIG,
    async () => {
      const child = await start(['bounded'])
      child.call(1, 'echo', { text: 'first' })
      child.call(2, 'echo', { text: 'second' })
      const fill = 64 * MiB + 1 - BIG_HEAD.length - BIG_TAIL.length
      await child.writeLarge(BIG_HEAD, fill, BIG_TAIL)
      expect(await child.exited).toBe(0)
      expect(child.messages.find((m) => m.id === 1)?.result.content[0].text).toBe('len:5')
      expect(child.messages.find((m) => m.id === 2)?.result.content[0].text).toBe('len:6')
      expect(child.messages.filter((m) => m.id === 9 && m.result !== undefined)).toEqual([])
      const refusals = child.refusals()
      expect(refusals).toHaveLength(1)
      expect(refusals[0].id).toBe(9)
      expect(refusals[0].error).toMatchObject({
        code: -32000,
        data: { code: 'ERR_LINE_TOO_LARGE', limit: 64 * MiB },
      })
    },
  )

  it('serves a line of exactly 64 MiB, its line ending included', BIG, async () => {
    const child = await start(['bounded'])
    const fill = 64 * MiB - BIG_HEAD.length - BIG_TAIL.length
    await child.writeLarge(BIG_HEAD, fill, BIG_TAIL)
    expect((await child.response(9)).result.content[0].text).toBe(`len:${fill}`)
    expect(child.nullErrors()).toEqual([])
  })
  it('reports each refused line once to server.onerror with its code and none of its bytes', async () => {
    const child = await start(['bounded', '--log-errors', '--max-line-bytes=4096'])
    child.write(`${MARKER} garbage\n`)
    child.write(`{"jsonrpc":"2.0","id":1,"${MARKER}":true,"method":"ping"}\n`)
    child.write(invalidUtf8Call(2))
    child.call(3, 'echo', { text: 'ok' })
    await child.response(3)
    child.write(`${BIG_HEAD}${MARKER.repeat(400)}${BIG_TAIL}`)
    expect(await child.exited).toBe(0)
    expect(child.onerrors().map((e) => [e.name, e.code, e.jsonRpcCode])).toEqual([
      ['StdioRefusalError', 'ERR_JSON_SYNTAX', -32700],
      ['StdioRefusalError', 'ERR_JSONRPC_INVALID_MESSAGE', -32600],
      ['StdioRefusalError', 'ERR_JSON_INVALID_UTF8', -32700],
      ['StdioRefusalError', 'ERR_LINE_TOO_LARGE', -32000],
    ])
    expect(child.onerrors()[3]?.message).toContain('ReadBuffer exceeded maximum size of 4096 bytes')
    expect(child.stderr).not.toContain(MARKER)
    expect(child.raw).not.toContain(MARKER)
  })

  it("honours the SDK's maxBufferSize option as the line cap", async () => {
    const child = await start(['bounded', '--log-errors', '--max-buffer-size=1024'])
    const head =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"'
    const fill = 1024 - head.length - BIG_TAIL.length
    child.write(`${head}${'x'.repeat(fill)}${BIG_TAIL}`)
    expect((await child.response(1)).result.content[0].text).toBe(`len:${fill}`)
    child.write(`${head.replace('"id":1', '"id":2')}${'x'.repeat(fill + 1)}${BIG_TAIL}`)
    expect(await child.exited).toBe(0)
    expect(child.refusals().map((m) => [m.id, m.error.data])).toEqual([
      [2, { code: 'ERR_LINE_TOO_LARGE', limit: 1024 }],
    ])
    expect(child.onerrors()).toEqual([
      expect.objectContaining({ code: 'ERR_LINE_TOO_LARGE', limit: 1024 }),
    ])
    expect(child.onerrors()[0]?.message).toMatch(/^ReadBuffer exceeded maximum size of 1024 bytes/)
  })

  it('exits by itself at the end of its input, with no signal, once the last answer is out', async () => {
    const child = await start(['bounded', '--no-exit-on-close'])
    child.call(1, 'echo', { text: 'bye' })
    child.proc.stdin.end()
    expect(await child.exited).toBe(0)
    expect(child.proc.signalCode).toBeNull()
    // The transport closed (the server's onclose ran): an exit alone would also come from an
    // event loop left empty by a transport that never closed.
    expect(child.stderr).toContain('closed')
    expect(child.messages.find((m) => m.id === 1)?.result.content[0].text).toBe('len:3')
  })

  it('keeps newlines and carriage returns inside one line each way', async () => {
    const child = await start(['bounded'])
    const text = 'first line\nsecond with a carriage return\r\n\n{"jsonrpc":"2.0","id":99}\nlast\n'
    child.call(1, 'repeat', { text })
    expect((await child.response(1)).result.content[0].text).toBe(text)
    // One request line in, one response line out: the payload crossed escaped.
    expect(child.raw.split('\n')).toEqual([expect.stringContaining('"id":1'), ''])
    expect(child.messages).toHaveLength(1)
  })
})

describe('StdioServerTransport (the SDK control, without tollgate)', () => {
  it('answers a malformed line with nothing', async () => {
    const child = await start(['sdk'])
    child.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call",${MARKER}\n`)
    child.call(2, 'echo', { text: 'ok' })
    await child.response(2)
    expect(child.messages.filter(parseError)).toEqual([])
    expect(child.messages.filter((m) => m.id === 1)).toEqual([])
  })

  it('runs the tool on an invalid UTF-8 line, with the byte silently replaced', async () => {
    const child = await start(['sdk'])
    child.write(invalidUtf8Call(1))
    const served = await child.response(1)
    expect(served.result.content[0].text).toBe(`len:${MARKER.length + 1}`)
    expect((await child.stats(2)).echoCalls).toBe(1)
  })

  it("hands server.onerror the caller's bytes for a line it cannot read", async () => {
    const child = await start(['sdk', '--log-errors'])
    child.write(`${MARKER} garbage\n`)
    child.write(`{"jsonrpc":"2.0","id":1,"${MARKER}":true,"method":"ping"}\n`)
    child.call(2, 'echo', { text: 'ok' })
    await child.response(2)
    // 1.32 reports both lines (a SyntaxError and a ZodError); 2.x skips unparseable JSON
    // without a word and reports the ZodError. Each report quotes the caller's bytes.
    expect(child.onerrors().length).toBeGreaterThanOrEqual(1)
    for (const e of child.onerrors()) expect(e.message).toContain('MARKER_7f3')
  })

  it('runs the tool on a depth-65 line', async () => {
    const child = await start(['sdk'])
    child.write(nestedCall(1, 62))
    expect((await child.response(1)).result.content[0].text).toBe('len:1')
  })

  it(
    'drops the whole connection at 10 MiB and answers the big line with nothing',
    BIG,
    async () => {
      const child = await start(['sdk'])
      child.call(1, 'echo', { text: 'first' })
      await child.response(1)
      const fill = 64 * MiB + 1 - BIG_HEAD.length - BIG_TAIL.length
      await child.writeLarge(BIG_HEAD, fill, BIG_TAIL)
      expect(await child.exited).toBe(0)
      expect(child.stderr).toContain('closed')
      expect(child.messages.filter((m) => m.id === 9 || m.id === null)).toEqual([])
    },
  )
})

describe('resolveBoundedStdioOptions', () => {
  it('fills the defaults and refuses maxLineBytes above 64 MiB or below 1', () => {
    expect(resolveBoundedStdioOptions().maxLineBytes).toBe(BOUNDED_STDIO_DEFAULTS.maxLineBytes)
    expect(resolveBoundedStdioOptions({ maxLineBytes: 64 * MiB }).maxLineBytes).toBe(64 * MiB)
    expect(() => resolveBoundedStdioOptions({ maxLineBytes: 64 * MiB + 1 })).toThrow(TypeError)
    expect(() => resolveBoundedStdioOptions({ maxLineBytes: 0 })).toThrow(TypeError)
    expect(() => resolveBoundedStdioOptions({ maxLineBytes: 1.5 })).toThrow(TypeError)
    expect(() => resolveBoundedStdioOptions({ bogus: 1 } as never)).toThrow(TypeError)
    expect(Object.isFrozen(resolveBoundedStdioOptions())).toBe(true)
  })
})
