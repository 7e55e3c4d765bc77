// BoundedStdioServerTransport's lifecycle on in-process streams: when it closes (end of input
// or a line past the cap, only once every delivered request is answered), what it writes for
// each refusal, what onerror gets, and how it writes (drain). The wire itself, with the SDK's
// server on a real child process, is in stdio.test.ts.
import { Duplex, PassThrough, Readable, Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { admissionError } from '../src/codes.js'
import {
  BoundedStdioServerTransport,
  type JsonRpcMessage,
  StdioRefusalError,
} from '../src/index.js'
import { linePipes } from './helpers/line-pipes.js'

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages as the wire gives them
type Msg = any

function setup(options = {}) {
  const { input, output, written } = linePipes()
  const transport = new BoundedStdioServerTransport(input, output, options)
  const seen = { messages: [] as Msg[], errors: [] as Error[], closes: 0 }
  transport.onmessage = (m) => seen.messages.push(m)
  transport.onerror = (e) => seen.errors.push(e)
  transport.onclose = () => seen.closes++
  return { input, output, transport, seen, written }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10))
const request = (id: unknown) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`
const result = (id: unknown) => ({ jsonrpc: '2.0', id, result: {} }) as JsonRpcMessage

describe('BoundedStdioServerTransport lifecycle', () => {
  it('refuses a second start', async () => {
    const { transport } = setup()
    await transport.start()
    await expect(transport.start()).rejects.toThrow(
      new Error('BoundedStdioServerTransport already started'),
    )
  })

  it('closes at end of input only once every delivered request is answered, each id counted', async () => {
    const { input, transport, seen } = setup()
    await transport.start()
    input.push(`${request(1)}${request(1)}${request('a')}`)
    input.push(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x' })}\n`)
    input.push(null)
    await settle()
    expect(seen.messages).toHaveLength(4)
    expect(seen.closes).toBe(0)
    await transport.send(result(1))
    // Not answers: a request, a response to an id never asked, an id that is not one.
    await transport.send({ jsonrpc: '2.0', id: 'a', method: 'x', result: {} } as JsonRpcMessage)
    await transport.send(result(2))
    await transport.send({ jsonrpc: '2.0', id: 'a' } as JsonRpcMessage)
    await transport.send({ jsonrpc: '2.0', id: null, result: {} } as unknown as JsonRpcMessage)
    await settle()
    expect(seen.closes).toBe(0)
    await transport.send(result(1))
    await settle()
    expect(seen.closes).toBe(0)
    await transport.send({ jsonrpc: '2.0', id: 'a', error: { code: 1, message: 'm' } })
    await settle()
    expect(seen.closes).toBe(1)
  })

  it('keeps a request id sent twice pending until it is answered twice, whatever is answered between', async () => {
    const { input, transport, seen } = setup()
    await transport.start()
    input.push(`${request(1)}${request(1)}${request('a')}`)
    input.push(null)
    await settle()
    await transport.send({ jsonrpc: '2.0', id: 'a', result: {} } as JsonRpcMessage)
    await transport.send(result(1))
    await settle()
    expect(seen.closes).toBe(0)
    await transport.send(result(1))
    await settle()
    expect(seen.closes).toBe(1)
  })

  it('closes at once at end of input with nothing pending, and drops an unterminated last line', async () => {
    const { input, transport, seen } = setup()
    await transport.start()
    input.push(request(1).trimEnd())
    input.push(null)
    await settle()
    expect(seen.messages).toEqual([])
    expect(seen.closes).toBe(1)
  })

  it('past the cap, destroys stdin, reads no more, and closes once the lines before it are answered', async () => {
    const { input, transport, seen, written } = setup({ maxLineBytes: 64 })
    await transport.start()
    input.push(request(7))
    input.push(Buffer.alloc(65, 0x20))
    await settle()
    expect(input.destroyed).toBe(true)
    expect(seen.messages).toHaveLength(1)
    expect(seen.closes).toBe(0)
    expect(written()).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32000,
          message: admissionError('ERR_LINE_TOO_LARGE', { limit: 64 }).message,
          data: { code: 'ERR_LINE_TOO_LARGE', limit: 64 },
        },
      },
    ])
    await transport.send(result(7))
    await settle()
    expect(seen.closes).toBe(1)
  })

  it('answers a refused line with Parse error, the code, the limit and the offset', async () => {
    const { input, transport, seen, written } = setup({ maxDepth: 2 })
    await transport.start()
    input.push('{"jsonrpc":"2.0","method":"x","params":{"a":[]}}\n')
    await settle()
    const [answer] = written()
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32700,
        message: 'Parse error',
        data: { code: 'ERR_JSON_TOO_DEEP', limit: 2, offset: expect.any(Number) },
      },
    })
    const [error] = seen.errors as StdioRefusalError[]
    expect(error).toMatchObject({
      name: 'StdioRefusalError',
      code: 'ERR_JSON_TOO_DEEP',
      jsonRpcCode: -32700,
      limit: 2,
      offset: answer.error.data.offset,
    })
    expect(error?.message).toMatch(/^stdio line refused: .+ \(ERR_JSON_TOO_DEEP\)$/)
  })

  it('frames string chunks from a stream with an encoding set', async () => {
    const input = new PassThrough()
    input.setEncoding('utf8')
    const { output } = setup()
    const transport = new BoundedStdioServerTransport(input, output)
    const messages: Msg[] = []
    transport.onmessage = (m) => messages.push(m)
    await transport.start()
    const line = `${JSON.stringify({ jsonrpc: '2.0', method: 'héllo€' })}\n`
    const bytes = Buffer.from(line)
    input.write(bytes.subarray(0, 20))
    input.write(bytes.subarray(20))
    await settle()
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'héllo€' }])
  })

  it('hands stdin errors and a throwing onmessage to onerror, and reads on', async () => {
    const { input, transport, seen } = setup()
    const boom = new Error('stdin failed')
    let calls = 0
    transport.onmessage = () => {
      calls++
      if (calls === 1) throw new Error('handler failed')
      if (calls === 2) throw 'not an Error'
    }
    await transport.start()
    input.emit('error', boom)
    input.push(`${request(1)}${request(2)}${request(3)}`)
    await settle()
    expect(calls).toBe(3)
    expect(seen.errors[0]).toBe(boom)
    expect(seen.errors.slice(1).map((e) => e.message)).toEqual([
      'handler failed',
      'onmessage threw',
    ])
  })

  it('stops reading at close: pauses stdin unless someone else reads it, and drops the partial line', async () => {
    const { input, transport, seen } = setup()
    await transport.start()
    input.push('{"jsonrpc":"2.0",')
    await settle()
    await transport.close()
    expect(input.isPaused()).toBe(true)
    input.push('"method":"x"}\n')
    await settle()
    expect(seen.messages).toEqual([])
    const shared = setup()
    shared.input.on('data', () => {})
    await shared.transport.start()
    await shared.transport.close()
    expect(shared.input.isPaused()).toBe(false)
  })

  it('resolves send only once stdout has taken the line (drain)', async () => {
    const input = new Readable({ read: () => {} })
    let release: (() => void) | undefined
    const output = new Writable({
      highWaterMark: 1,
      write(_chunk, _encoding, callback) {
        release = callback
      },
    })
    const transport = new BoundedStdioServerTransport(input, output)
    let sent = false
    const pending = transport.send(result(1)).then(() => {
      sent = true
    })
    await settle()
    expect(sent).toBe(false)
    release?.()
    await pending
    expect(sent).toBe(true)
  })
})

describe('BoundedStdioServerTransport with callbacks missing or failing', () => {
  function bare() {
    const input = new Readable({ read: () => {} })
    const output = new Writable({ write: (_chunk, _encoding, callback) => callback() })
    return { input, transport: new BoundedStdioServerTransport(input, output) }
  }

  it('takes a stdin error, a request and close with no callback set, and throws nothing', async () => {
    const { input, transport } = bare()
    await transport.start()
    expect(() => input.emit('error', new Error('stdin failed'))).not.toThrow()
    expect(() => input.emit('data', Buffer.from(request(1)))).not.toThrow()
    await expect(transport.close()).resolves.toBeUndefined()
  })

  it('reports nothing to onerror for a request delivered with no onmessage set', async () => {
    const { input, transport } = bare()
    const errors: Error[] = []
    transport.onerror = (e) => errors.push(e)
    await transport.start()
    input.emit('data', Buffer.from(request(1)))
    expect(errors).toEqual([])
  })

  it('reads on past a throwing onmessage when no onerror is set', async () => {
    const { input, transport } = bare()
    const seen: Msg[] = []
    transport.onmessage = (m) => {
      seen.push(m)
      throw new Error('handler failed')
    }
    await transport.start()
    expect(() => input.emit('data', Buffer.from(`${request(1)}${request(2)}`))).not.toThrow()
    expect(seen.map((m) => m.id)).toEqual([1, 2])
  })

  it('hands a stdout write that throws to onerror, and raises nothing without one', async () => {
    const input = new Readable({ read: () => {} })
    const output = new Writable()
    output.write = () => {
      throw new Error('stdout down')
    }
    const transport = new BoundedStdioServerTransport(input, output)
    const errors: Error[] = []
    transport.onerror = (e) => errors.push(e)
    await transport.start()
    input.emit('data', Buffer.from('{"jsonrpc":\n'))
    await settle()
    expect(errors.map((e) => e.message)).toContain('stdout down')

    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const silent = new BoundedStdioServerTransport(input, output)
      await silent.start()
      input.emit('data', Buffer.from('{"jsonrpc":\n'))
      await settle()
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('at the end of input on a half-open duplex, keeps it open for the answers and detaches', async () => {
    let text = ''
    const duplex = new Duplex({
      allowHalfOpen: true,
      read: () => {},
      write(chunk, _encoding, callback) {
        text += chunk.toString()
        callback()
      },
    })
    const transport = new BoundedStdioServerTransport(duplex, duplex)
    let closes = 0
    transport.onclose = () => closes++
    transport.onmessage = () => {}
    await transport.start()
    duplex.push(request(1))
    duplex.push(null)
    await settle()
    expect(duplex.destroyed).toBe(false)
    expect(['data', 'error', 'end'].map((e) => duplex.listenerCount(e))).toEqual([0, 0, 0])
    expect(closes).toBe(0)
    await transport.send(result(1))
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
    await settle()
    expect(closes).toBe(1)
  })
})

describe('StdioRefusalError', () => {
  it('builds its messages from the code, the limit and the option alone', () => {
    const over = StdioRefusalError.overflow(
      admissionError('ERR_LINE_TOO_LARGE', { limit: 100, option: 'maxBufferSize' }),
    )
    expect(over.message).toBe(
      'ReadBuffer exceeded maximum size of 100 bytes: a stdio line passed maxBufferSize (ERR_LINE_TOO_LARGE); input ended',
    )
    expect(over).toMatchObject({ code: 'ERR_LINE_TOO_LARGE', jsonRpcCode: -32000, limit: 100 })
    expect(over.offset).toBeUndefined()
    const bare = StdioRefusalError.overflow(admissionError('ERR_LINE_TOO_LARGE'))
    expect(bare.message).toBe(
      'ReadBuffer exceeded maximum size of 0 bytes: a stdio line passed maxLineBytes (ERR_LINE_TOO_LARGE); input ended',
    )
    const invalid = StdioRefusalError.invalidMessage()
    expect(invalid.message).toBe(
      'stdio line is not a JSON-RPC 2.0 message (ERR_JSONRPC_INVALID_MESSAGE)',
    )
    expect(invalid).toMatchObject({
      name: 'StdioRefusalError',
      code: 'ERR_JSONRPC_INVALID_MESSAGE',
      jsonRpcCode: -32600,
      limit: undefined,
      offset: undefined,
    })
    expect(invalid).toBeInstanceOf(Error)
  })
})
