import { PassThrough, Writable } from 'node:stream'
import fc from 'fast-check'
import { anyDocument, anySplits, chunksOf } from '../arbitraries.js'
import { ddmin } from '../ddmin.js'
import { countJsonText, strictParse } from '../strict-json.js'
import {
  type ChunkedBytes,
  decodeChunked,
  encodeChunked,
  type FuzzTarget,
  minimizeChunked,
} from '../target.js'

// Small enough that some generated lines cross it, so the overflow path is exercised.
const MAX_LINE_BYTES = 1_024
const LIMITS = { maxNodes: 100_000, maxDepth: 64 }

type Event = { kind: 'message'; json: string } | { kind: 'error'; code: number }

interface TransportLike {
  onmessage?: (message: unknown) => void
  onclose?: () => void
  start(): Promise<void>
  close(): Promise<void>
}
type TransportClass = new (
  stdin: PassThrough,
  stdout: Writable,
  options: { maxLineBytes: number; maxNodes: number; maxDepth: number },
) => TransportLike
type MessageSchema = { safeParse(value: unknown): { success: boolean } }

let Transport: TransportClass | undefined
let schema: MessageSchema | undefined

async function load(): Promise<string | undefined> {
  if (Transport !== undefined) return undefined
  const mod = (await import('@tollgate/mcp-transport')) as Record<string, unknown>
  if (typeof mod.BoundedStdioServerTransport !== 'function') {
    return '@tollgate/mcp-transport does not export BoundedStdioServerTransport'
  }
  Transport = mod.BoundedStdioServerTransport as TransportClass
  const types = (await import('@modelcontextprotocol/sdk/types.js')) as unknown as {
    JSONRPCMessageSchema: MessageSchema
  }
  schema = types.JSONRPCMessageSchema
  return undefined
}

/** What the transport must do with the whole byte stream, line by line. */
function expectedEvents(bytes: Uint8Array): Event[] {
  const events: Event[] = []
  let start = 0
  for (;;) {
    const newline = bytes.indexOf(0x0a, start)
    const end = newline < 0 ? bytes.length : newline + 1
    const lineLength = end - start
    // The cap counts the line ending; a partial last line is judged on what arrived.
    if (lineLength > MAX_LINE_BYTES) {
      events.push({ kind: 'error', code: -32000 })
      return events
    }
    if (newline < 0) return events // a partial line at end of input is dropped
    let line = bytes.subarray(start, newline)
    if (line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1)
    start = newline + 1
    if (line.length === 0) continue
    const reference = strictParse(line, true)
    if (!reference.ok) {
      events.push({ kind: 'error', code: -32700 })
      continue
    }
    const counts = countJsonText(reference.text)
    if (counts.depth > LIMITS.maxDepth || counts.nodes > LIMITS.maxNodes) {
      events.push({ kind: 'error', code: -32700 })
      continue
    }
    if (!schema?.safeParse(reference.value).success) {
      events.push({ kind: 'error', code: -32600 })
      continue
    }
    events.push({ kind: 'message', json: JSON.stringify(reference.value) })
  }
}

/** Feeds the stream to a real BoundedStdioServerTransport in the given chunks; logs what it did. */
async function observe(chunks: readonly Uint8Array[]): Promise<Event[]> {
  const events: Event[] = []
  const stdin = new PassThrough()
  let pending = ''
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      pending += chunk.toString()
      let nl = pending.indexOf('\n')
      while (nl >= 0) {
        const message = JSON.parse(pending.slice(0, nl)) as { error?: { code: number } }
        events.push({ kind: 'error', code: message.error?.code ?? 0 })
        pending = pending.slice(nl + 1)
        nl = pending.indexOf('\n')
      }
      callback()
    },
  })
  const transport = new Transport!(stdin, stdout, { maxLineBytes: MAX_LINE_BYTES, ...LIMITS })
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve
  })
  transport.onmessage = (message) => events.push({ kind: 'message', json: JSON.stringify(message) })
  await transport.start()
  for (const chunk of chunks) {
    if (stdin.destroyed) break
    stdin.write(chunk)
    await new Promise((resolve) => setImmediate(resolve))
  }
  if (!stdin.destroyed) stdin.end()
  const timeout = new Promise<'timeout'>((resolve) =>
    setTimeout(() => resolve('timeout'), 10_000).unref(),
  )
  if ((await Promise.race([closed, timeout])) === 'timeout') {
    await transport.close()
    events.push({ kind: 'error', code: Number.NaN })
  }
  return events
}

/** A stream of lines: JSON-RPC notifications carrying generated documents, and bare documents. */
const anyStream: fc.Arbitrary<Uint8Array> = fc
  .array(fc.tuple(anyDocument, fc.boolean(), fc.constantFrom('\n', '\r\n', '\n\n')), {
    minLength: 1,
    maxLength: 5,
  })
  .map((lines) => {
    const parts: Buffer[] = []
    for (const [doc, wrap, ending] of lines) {
      if (wrap) parts.push(Buffer.from('{"jsonrpc":"2.0","method":"fuzz/note","params":{"v":'))
      parts.push(Buffer.from(doc))
      if (wrap) parts.push(Buffer.from('}}'))
      parts.push(Buffer.from(ending))
    }
    return new Uint8Array(Buffer.concat(parts))
  })

/** Judges one stream: the transport's messages and answers match the line-by-line reference. */
export async function judgeStdio(input: ChunkedBytes): Promise<string | undefined> {
  const expected = expectedEvents(input.bytes)
  const chunks = chunksOf(input.bytes, input.splits)
  const actual = await observe(chunks)
  const a = JSON.stringify(actual)
  const e = JSON.stringify(expected)
  if (a !== e)
    return `split ${chunks.map((c) => c.length).join('+')}: expected ${e.slice(0, 300)} got ${a.slice(0, 300)}`
  return undefined
}

export const stdioTarget: FuzzTarget<ChunkedBytes> = {
  name: 'stdio-lines',
  description:
    'BoundedStdioServerTransport fed a line stream in random splits vs a line-by-line reference',
  shrink: false,
  minimizeBudget: 300,
  arbitrary: fc.record({ bytes: anyStream, splits: anySplits }),
  unavailable: load,
  check: judgeStdio,
  minimize: (input, fails) => minimizeChunked(input, fails, ddmin, 300),
  encode: encodeChunked,
  decode: decodeChunked,
}
