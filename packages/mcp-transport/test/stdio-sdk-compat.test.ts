import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { describe, expect, it } from 'vitest'
import {
  BoundedStdioServerTransport,
  INVALID_MESSAGE_CODE,
  type JsonRpcMessage,
  StdioRefusalError,
} from '../src/index.js'
import { SDK_OVERFLOW_MESSAGE } from '../src/stdio-refusal.js'
import { linePipes } from './helpers/line-pipes.js'

const MiB = 1024 * 1024
const MARKER = 'MARKER_7f3a9c'
const PING = { jsonrpc: '2.0', id: 1, method: 'ping' } as const
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' } as const

type Observed = {
  messages: JsonRpcMessage[]
  errors: Error[]
  closes: number
}

function observe(transport: {
  onmessage?: ((m: JsonRpcMessage) => void) | undefined
  onerror?: ((e: Error) => void) | undefined
  onclose?: (() => void) | undefined
}): Observed {
  const seen: Observed = { messages: [], errors: [], closes: 0 }
  transport.onmessage = (m) => seen.messages.push(m)
  transport.onerror = (e) => seen.errors.push(e)
  transport.onclose = () => seen.closes++
  return seen
}

/** Lets the stream events and the close microtasks run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

describe('BoundedStdioServerTransport, as the SDK StdioServerTransport is used', () => {
  it('takes the SDK constructor: positional stdin and stdout and its maxBufferSize option', () => {
    const { input, output } = linePipes()
    expect(
      () => new BoundedStdioServerTransport(input, output, { maxBufferSize: 100 }),
    ).not.toThrow()
    expect(() => new BoundedStdioServerTransport(undefined, undefined, undefined)).not.toThrow()
    expect(
      () => new BoundedStdioServerTransport(input, output, { maxBufferSize: undefined }),
    ).not.toThrow()
  })

  it('refuses a maxBufferSize above 64 MiB, below 1, or disagreeing with maxLineBytes', () => {
    const make = (options: object) => () =>
      new BoundedStdioServerTransport(undefined, undefined, options)
    expect(make({ maxBufferSize: 64 * MiB + 1 })).toThrow(/^maxBufferSize may not exceed 67108864/)
    expect(make({ maxBufferSize: 0 })).toThrow(TypeError)
    expect(make({ maxBufferSize: 100, maxLineBytes: 200 })).toThrow(
      /maxBufferSize and maxLineBytes/,
    )
    expect(make({ maxBufferSize: 100, maxLineBytes: 100 })).not.toThrow()
    expect(make({ maxBufferSize: 64 * MiB })).not.toThrow()
  })

  it('reads nothing before start, then delivers the lines already written, in order', async () => {
    const { input, output } = linePipes()
    const transport = new BoundedStdioServerTransport(input, output)
    const seen = observe(transport)
    input.push(`${JSON.stringify(PING)}\n`)
    input.push(`${JSON.stringify(INITIALIZED)}\n`)
    await settle()
    expect(seen.messages).toEqual([])
    await transport.start()
    await settle()
    expect(seen.messages).toEqual([PING, INITIALIZED])
    expect(seen.errors).toEqual([])
  })

  it('calls onclose on close, once however often close runs', async () => {
    const { input, output } = linePipes()
    const transport = new BoundedStdioServerTransport(input, output)
    const seen = observe(transport)
    await transport.start()
    expect(seen.closes).toBe(0)
    await transport.close()
    await transport.close()
    expect(seen.closes).toBe(1)
    expect(seen.errors).toEqual([])
  })

  it('honours maxBufferSize as the line cap: 100 bytes read, 101 refused with onerror and one close', async () => {
    const { input, output, written } = linePipes()
    const transport = new BoundedStdioServerTransport(input, output, { maxBufferSize: 100 })
    const seen = observe(transport)
    await transport.start()
    // Exactly 100 bytes, its `\n` included (a notification: a request would hold the close
    // until it is answered).
    const head = '{"jsonrpc":"2.0","method":"notifications/initialized","params":{"pad":"'
    const line = `${head}${'x'.repeat(100 - head.length - 4)}"}}\n`
    expect(Buffer.byteLength(line)).toBe(100)
    input.push(line)
    await settle()
    expect(seen.errors).toEqual([])
    expect(seen.messages).toHaveLength(1)
    input.push(Buffer.alloc(101, 0x41))
    await settle()
    expect(seen.errors).toHaveLength(1)
    const [error] = seen.errors as [StdioRefusalError]
    expect(error).toBeInstanceOf(StdioRefusalError)
    expect(error.message).toMatch(/ReadBuffer exceeded maximum size/)
    expect(error).toMatchObject({ code: 'ERR_LINE_TOO_LARGE', limit: 100, jsonRpcCode: -32000 })
    expect(seen.closes).toBe(1)
    expect(written().at(-1)).toMatchObject({
      id: null,
      error: { code: -32000, data: { code: 'ERR_LINE_TOO_LARGE', limit: 100 } },
    })
  })

  it('fires onerror once and closes once at a line one byte past the 64 MiB default', async () => {
    const { input, output } = linePipes()
    const transport = new BoundedStdioServerTransport(input, output)
    const seen = observe(transport)
    await transport.start()
    input.push(Buffer.alloc(64 * MiB + 1, 0x41))
    await settle()
    expect(seen.errors.map((e) => e.message)).toEqual([
      expect.stringContaining(`${SDK_OVERFLOW_MESSAGE} of ${64 * MiB} bytes`),
    ])
    expect(seen.errors[0]).toMatchObject({ code: 'ERR_LINE_TOO_LARGE', limit: 64 * MiB })
    expect(seen.closes).toBe(1)
  })

  it('reports a malformed line to onerror once with its code and none of its bytes, and reads on', async () => {
    const { input, output, text } = linePipes()
    const transport = new BoundedStdioServerTransport(input, output)
    const seen = observe(transport)
    await transport.start()
    input.push(`${MARKER} garbage\n${JSON.stringify(PING)}\n`)
    await settle()
    expect(seen.errors).toHaveLength(1)
    expect(seen.errors[0]).toMatchObject({ code: 'ERR_JSON_SYNTAX', jsonRpcCode: -32700 })
    expect(seen.errors[0]?.message).not.toContain(MARKER)
    expect(seen.messages).toEqual([PING])
    expect(text()).not.toContain(MARKER)
  })

  it('reports valid JSON that is not JSON-RPC to onerror with ERR_JSONRPC_INVALID_MESSAGE and reads on', async () => {
    const { input, output, written } = linePipes()
    // Every refused line reported as it happens (stdio-refusal-log.test.ts holds the window).
    const transport = new BoundedStdioServerTransport(input, output, { refusalWindowMs: 0 })
    const seen = observe(transport)
    await transport.start()
    input.push(
      `{"jsonrpc":"2.0","id":1,"${MARKER}":true,"method":"ping"}\n[${JSON.stringify(PING)}]\n`,
    )
    input.push(`${JSON.stringify(PING)}\n`)
    await settle()
    expect(seen.errors.map((e) => (e as StdioRefusalError).code)).toEqual([
      INVALID_MESSAGE_CODE,
      INVALID_MESSAGE_CODE,
    ])
    expect(seen.errors.map((e) => e.message).join()).not.toContain(MARKER)
    expect(seen.messages).toEqual([PING])
    // The first names a request's id (its bytes parsed: it is valid JSON); a batch names none.
    expect(written()).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32600, message: 'Invalid Request', data: { code: INVALID_MESSAGE_CODE } },
      },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request', data: { code: INVALID_MESSAGE_CODE } },
      },
    ])
  })

  it('keeps reading when the onerror handler throws', async () => {
    const { input, output } = linePipes()
    const transport = new BoundedStdioServerTransport(input, output)
    const seen = observe(transport)
    transport.onerror = () => {
      throw new Error('logger down')
    }
    await transport.start()
    input.push(`not json\n${JSON.stringify(PING)}\n`)
    await settle()
    expect(seen.messages).toEqual([PING])
  })

  it("shows the SDK transport hands onerror the caller's bytes for the same lines (the control)", async () => {
    const { input, output } = linePipes()
    const transport = new StdioServerTransport(input, output)
    const seen = observe(transport as never)
    await transport.start()
    input.push(`${MARKER} garbage\n{"jsonrpc":"2.0","id":1,"${MARKER}":true,"method":"ping"}\n`)
    await settle()
    expect(seen.errors).toHaveLength(2)
    for (const error of seen.errors) expect(error.message).toContain('MARKER_7f3')
  })
})
