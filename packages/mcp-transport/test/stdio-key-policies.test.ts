// Through a real child process (test/fixtures/stdio-server.mjs: an SDK McpServer over the built
// BoundedStdioServerTransport) and a raw client that writes bytes no SDK client would: a line
// repeating a key and a line holding `__proto__` are refused by default, under the id the line
// carries, and the tool never runs; with the policies set to 'allow' (the control) both lines
// reach the tool.
import { afterEach, describe, expect, it } from 'vitest'
import { BOUNDED_STDIO_DEFAULTS } from '../src/index.js'
import { StdioChild } from './helpers/stdio-child.js'

const MARKER = 'MARKER_5e1d0b'
const children: StdioChild[] = []

async function start(args: string[]): Promise<StdioChild> {
  const child = await StdioChild.start(args)
  children.push(child)
  return child
}

afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => c.stop()))
})

// `text` twice: JSON.parse keeps the last, so a validator that read the first would judge
// another value than the handler gets.
const duplicateLine = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"${MARKER}","text":"bb"}}}\n`
const protoLine = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"abc","__proto__":{"isAdmin":"${MARKER}"}}}}\n`

describe('BOUNDED_STDIO_DEFAULTS', () => {
  it('refuses duplicate keys and __proto__ keys', () => {
    expect(BOUNDED_STDIO_DEFAULTS.duplicateKeys).toBe('refuse')
    expect(BOUNDED_STDIO_DEFAULTS.protoKeys).toBe('refuse')
  })
})

describe('BoundedStdioServerTransport (key policies, default)', () => {
  it('answers a line repeating a key with -32700 ERR_JSON_DUPLICATE_KEY under its id, and never runs the tool', async () => {
    const child = await start(['bounded'])
    child.write(duplicateLine(11))
    const refused = await child.response(11)
    expect(refused.error.code).toBe(-32700)
    expect(refused.error.data.code).toBe('ERR_JSON_DUPLICATE_KEY')
    expect((await child.stats(12)).echoCalls).toBe(0)
    expect(child.raw).not.toContain(MARKER)
  })

  it('answers a line holding __proto__ with -32700 ERR_JSON_PROTO_KEY under its id, and never runs the tool', async () => {
    const child = await start(['bounded'])
    child.write(protoLine(21))
    const refused = await child.response(21)
    expect(refused.error.code).toBe(-32700)
    expect(refused.error.data.code).toBe('ERR_JSON_PROTO_KEY')
    expect((await child.stats(22)).echoCalls).toBe(0)
    expect(child.raw).not.toContain(MARKER)
  })

  it('serves the next line after a refused one', async () => {
    const child = await start(['bounded'])
    child.write(duplicateLine(31))
    child.write(protoLine(32))
    child.call(33, 'echo', { text: 'ok' })
    expect((await child.response(33)).result.content[0].text).toBe('len:2')
    expect((await child.response(31)).error.data.code).toBe('ERR_JSON_DUPLICATE_KEY')
    expect((await child.response(32)).error.data.code).toBe('ERR_JSON_PROTO_KEY')
  })
})

describe('BoundedStdioServerTransport (key policies set to allow: the control)', () => {
  it('lets both lines through to the tool', async () => {
    const child = await start(['bounded', '--duplicate-keys=allow', '--proto-keys=allow'])
    child.write(duplicateLine(41))
    // JSON.parse kept the last `text`: the tool saw "bb".
    expect((await child.response(41)).result.content[0].text).toBe('len:2')
    child.write(protoLine(42))
    expect((await child.response(42)).result.content[0].text).toBe('len:3')
    expect((await child.stats(43)).echoCalls).toBe(2)
  })
})
