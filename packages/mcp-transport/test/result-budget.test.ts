// Through real child processes: test/fixtures/stdio-server.mjs runs an SDK McpServer over the
// built BoundedStdioServerTransport wrapped in resultBudget() (or not, with --no-budget). Its
// `sized` tool returns a result whose compact JSON is exactly the bytes asked for; its `stats`
// tool reports the longest JSON.stringify output since the last call (the sentinel that shows
// whether the oversized result was ever serialized).
import { afterEach, describe, expect, it } from 'vitest'
import { RESULT_BUDGET_OPTIONS, resolveResultBudgetOptions, resultBudget } from '../src/index.js'
import { recordingTransport } from './helpers/recording-transport.js'
import { StdioChild } from './helpers/stdio-child.js'

const MiB = 1024 * 1024
const BUDGET = 64 * MiB - 1024
// 64 MiB through a child's pipes, serialized and parsed on each side: about 5 s on an idle
// machine, past 35 s on a loaded 2-core CI machine, where the 30 s default failed them.
const BIG = { timeout: 180_000 }
const children: StdioChild[] = []

async function start(args: string[]): Promise<StdioChild> {
  const child = await StdioChild.start(args, { keepRaw: false })
  children.push(child)
  return child
}

afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => c.stop()))
})

describe('ResultBudgetTransport', () => {
  it('serves a tools/call result of exactly 64 MiB − 1 KiB', BIG, async () => {
    const child = await start(['bounded'])
    child.call(1, 'sized', { bytes: BUDGET })
    const response = await child.response(1)
    expect(response.result.isError).toBeUndefined()
    expect(Buffer.byteLength(JSON.stringify(response.result))).toBe(BUDGET)
  })

  it(
    'replaces a result one byte over with an ERR_JSON_TOO_LARGE tool error, never serialized',
    BIG,
    async () => {
      const child = await start(['bounded'])
      child.call(1, 'sized', { bytes: BUDGET + 1 })
      const response = await child.response(1)
      expect(response.result.isError).toBe(true)
      expect(response.result.content).toHaveLength(1)
      const text: string = response.result.content[0].text
      expect(text.startsWith('ERR_JSON_TOO_LARGE')).toBe(true)
      expect(text).toContain(String(BUDGET))
      expect(text.length).toBeLessThan(512)
      const stats = await child.stats(2)
      expect(stats.longestSerialized).toBeLessThan(4096)
    },
  )

  it('lets the oversized result out when the decorator is removed (the control)', BIG, async () => {
    const child = await start(['bounded', '--no-budget'])
    child.call(1, 'sized', { bytes: BUDGET + 1 })
    const response = await child.response(1)
    expect(response.result.isError).toBeUndefined()
    expect(Buffer.byteLength(JSON.stringify(response.result))).toBe(BUDGET + 1)
    expect((await child.stats(2)).longestSerialized).toBeGreaterThan(BUDGET)
  })
})

describe('resolveResultBudgetOptions', () => {
  it('fills the defaults, keeps a lower budget and refuses one above 64 MiB', () => {
    const d = resolveResultBudgetOptions()
    expect(d.maxResultBytes).toBe(RESULT_BUDGET_OPTIONS.defaults.maxResultBytes)
    expect(d.maxBytes).toBe(BUDGET)
    expect(resolveResultBudgetOptions({ maxResultBytes: MiB }).maxBytes).toBe(MiB - 1024)
    expect(() => resolveResultBudgetOptions({ maxResultBytes: 64 * MiB + 1 })).toThrow(TypeError)
    expect(() => resolveResultBudgetOptions({ envelopeReserveBytes: 64 * MiB })).toThrow(TypeError)
    expect(() => resolveResultBudgetOptions({ maxResultBytes: -1 })).toThrow(TypeError)
    expect(() => resolveResultBudgetOptions({ nope: 1 } as never)).toThrow(TypeError)
    expect(Object.isFrozen(d)).toBe(true)
  })

  it('validates at construction through resultBudget()', () => {
    const fake = { start: async () => {}, send: async () => {}, close: async () => {} }
    expect(() => resultBudget(fake, { maxResultBytes: 0 })).toThrow(TypeError)
  })
})

// Helper tests of the id bookkeeping, in-process over a bare transport that records what it
// is asked to send (the budget itself is tested through a real child process above).
describe('ResultBudgetTransport bookkeeping (in-process)', () => {
  function setup() {
    const { inner, sent, inbound } = recordingTransport()
    const budget = resultBudget(inner, { maxResultBytes: 2048, envelopeReserveBytes: 48 })
    budget.onmessage = () => {}
    return { sent, budget, inbound }
  }
  const big = { content: [{ type: 'text', text: 'x'.repeat(2000) }] }

  it('charges a tool-shaped result it saw no tools/call for, as tasks/result carries', async () => {
    const { sent, budget } = setup()
    await budget.send({ jsonrpc: '2.0', id: 5, result: big })
    expect(sent[0].result.isError).toBe(true)
    expect(sent[0].result.content[0].text).toContain('ERR_JSON_TOO_LARGE')
  })

  it('forgets a cancelled call and still charges its late answer', async () => {
    const { sent, budget, inbound } = setup()
    inbound({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 't' } })
    inbound({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } })
    await budget.send({ jsonrpc: '2.0', id: 7, result: big })
    expect(sent[0].result.isError).toBe(true)
  })

  it('passes results that are not tool results untouched', async () => {
    const { sent, budget } = setup()
    const contents = { contents: [{ uri: 'a://b', text: 'x'.repeat(4000) }] }
    await budget.send({ jsonrpc: '2.0', id: 9, result: contents })
    expect(sent[0].result).toBe(contents)
  })

  it('refuses a resources/read answer over the budget with a JSON-RPC error, never truncated', async () => {
    const { sent, budget, inbound } = setup()
    inbound({ jsonrpc: '2.0', id: 11, method: 'resources/read', params: { uri: 'a://b' } })
    await budget.send({
      jsonrpc: '2.0',
      id: 11,
      result: { contents: [{ uri: 'a://b', text: 'x'.repeat(4000) }] },
    })
    expect(sent[0].result).toBeUndefined()
    expect(sent[0].error.code).toBe(-32000)
    expect(sent[0].error.data).toEqual({ code: 'ERR_JSON_TOO_LARGE', limit: 2000 })
    expect(JSON.stringify(sent[0]).length).toBeLessThan(512)
  })

  it('serves a resources/read answer within the budget untouched', async () => {
    const { sent, budget, inbound } = setup()
    inbound({ jsonrpc: '2.0', id: 12, method: 'resources/read', params: { uri: 'a://b' } })
    const contents = { contents: [{ uri: 'a://b', text: 'x'.repeat(1900) }] }
    await budget.send({ jsonrpc: '2.0', id: 12, result: contents })
    expect(sent[0].result).toBe(contents)
  })
})
