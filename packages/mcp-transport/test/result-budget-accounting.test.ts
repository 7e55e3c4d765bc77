// The result budget's accounting, in-process over a bare transport that records what it is
// asked to send: which answers are charged (by the request ids it saw, counted per id, and by
// the tool-result shape), which limit refuses them and what replaces them. The budget itself,
// on the wire, is tested through a real child process in result-budget.test.ts.
import { describe, expect, it } from 'vitest'
import { admissionError } from '../src/codes.js'
import { resultBudget } from '../src/index.js'
import { toolErrorResult } from '../src/result-budget.js'
import { recordingTransport } from './helpers/recording-transport.js'

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages as the wire gives them
type Msg = any

function setup(options = {}) {
  const { inner, sent, inbound } = recordingTransport()
  const delivered: Msg[] = []
  const budget = resultBudget(inner, { maxResultBytes: 2048, envelopeReserveBytes: 48, ...options })
  budget.onmessage = (m) => delivered.push(m)
  const answer = async (id: unknown, result: unknown) => {
    await budget.send({ jsonrpc: '2.0', id, result } as Msg)
    return sent.at(-1)
  }
  return { sent, delivered, budget, inbound, answer }
}

const call = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't' } })
const read = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'resources/read', params: {} })
// Not tool-shaped: charged only as the answer to a request the budget saw.
const plain = (bytes: number) => ({ data: 'x'.repeat(bytes) })

describe('ResultBudgetTransport accounting', () => {
  it('delivers every inbound message and charges each answer to a tools/call id once per call', async () => {
    const { delivered, inbound, answer } = setup()
    inbound(call(4))
    inbound(call(4))
    inbound(call('s'))
    expect(delivered).toHaveLength(3)
    expect((await answer(4, plain(3000))).result.isError).toBe(true)
    expect((await answer(4, plain(3000))).result.isError).toBe(true)
    // Both calls of id 4 answered: a third answer is not a tools/call answer.
    expect((await answer(4, plain(3000))).result).toEqual(plain(3000))
    expect((await answer('s', plain(3000))).result.isError).toBe(true)
    // The budget is the result object's: maxResultBytes less the reserve.
    const fits = plain(2000 - JSON.stringify(plain(0)).length)
    inbound(call(5))
    expect((await answer(5, fits)).result).toBe(fits)
  })

  it('counts an error answer against its call, and charges nothing for a notification or a request', async () => {
    const { budget, inbound, sent, answer } = setup()
    inbound(call(3))
    await budget.send({ jsonrpc: '2.0', id: 3, error: { code: -1, message: 'm' } })
    expect(sent[0].error.code).toBe(-1)
    expect((await answer(3, plain(3000))).result).toEqual(plain(3000))
    const big = { content: [{ type: 'text', text: 'x'.repeat(3000) }] }
    const notification: Msg = { jsonrpc: '2.0', method: 'notifications/x', params: big }
    await budget.send(notification)
    expect(sent.at(-1)).toBe(notification)
    const request: Msg = { jsonrpc: '2.0', id: 9, method: 'sampling/x', result: big }
    await budget.send(request)
    expect(sent.at(-1)).toBe(request)
    // Neither a result nor an error, or no usable id: not an answer.
    const bare: Msg = { jsonrpc: '2.0', id: 9 }
    await budget.send(bare)
    expect(sent.at(-1)).toBe(bare)
    expect(await answer(null, big)).toEqual({ jsonrpc: '2.0', id: null, result: big })
  })

  it('does not count a tools/call notification (no id) as a call', async () => {
    const { inbound, answer } = setup()
    inbound({ jsonrpc: '2.0', method: 'tools/call', params: { name: 't' } })
    inbound({ jsonrpc: '2.0', id: 6, method: 'tools/list' })
    expect((await answer(6, plain(3000))).result).toEqual(plain(3000))
  })

  it('charges any tool-shaped result, by content array or structuredContent, and nothing else', async () => {
    const { answer } = setup()
    const structured = { structuredContent: { x: 'x'.repeat(3000) } }
    expect((await answer(1, structured)).result.isError).toBe(true)
    const notArray = { content: { text: 'x'.repeat(3000) } }
    expect((await answer(2, notArray)).result).toBe(notArray)
    expect((await answer(3, 'x'.repeat(3000))).result).toBe('x'.repeat(3000))
    expect((await answer(4, null)).result).toBeNull()
  })

  it('forgets only the cancelled request, calls and reads alike', async () => {
    const { inbound, answer } = setup()
    inbound(call(7))
    inbound(call(8))
    inbound(read('r'))
    inbound({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } })
    inbound({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'r' } })
    inbound({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: {} } })
    inbound({ jsonrpc: '2.0', method: 'notifications/cancelled' })
    expect((await answer(7, plain(3000))).result).toEqual(plain(3000))
    expect((await answer(8, plain(3000))).result.isError).toBe(true)
    const contents = { contents: [{ uri: 'a://b', text: 'x'.repeat(3000) }] }
    expect((await answer('r', contents)).result).toBe(contents)
  })

  it('refuses by node count and depth too, naming the code and the limit', async () => {
    const { answer } = setup({ maxNodes: 8, maxDepth: 3 })
    const many = { content: [1, 2, 3, 4, 5, 6, 7, 8] }
    expect((await answer(1, many)).result.content[0].text).toMatch(/^ERR_JSON_TOO_MANY_NODES: /)
    // Depth counts the result object: 4 here, 3 below.
    const deep = { content: [[[]]] }
    expect((await answer(2, deep)).result.content[0].text).toMatch(/^ERR_JSON_TOO_DEEP: /)
    const ok = { content: [[]] }
    expect((await answer(3, ok)).result).toBe(ok)
  })

  it('answers a result that cannot be walked with ERR_JSON_UNSUPPORTED_VALUE, tool and read alike', async () => {
    const { inbound, answer } = setup()
    const throwing = {
      content: [],
      get trap() {
        throw new Error('MARKER_getter')
      },
    }
    const tool = await answer(1, throwing)
    expect(tool.result.isError).toBe(true)
    expect(tool.result.content[0].text).toMatch(/^ERR_JSON_UNSUPPORTED_VALUE: /)
    expect(JSON.stringify(tool)).not.toContain('MARKER')
    inbound(read(2))
    const refused = await answer(2, throwing)
    expect(refused.error).toEqual({
      code: -32000,
      message: expect.any(String),
      data: { code: 'ERR_JSON_UNSUPPORTED_VALUE' },
    })
    // No limit and no offset to name: `data` holds the code alone, not undefined members.
    expect(Object.keys(refused.error.data)).toEqual(['code'])
    expect(refused.id).toBe(2)
  })

  it('counts reads per id, forgets one once answered, and forgets a pending one only on its cancellation', async () => {
    const { inbound, delivered, answer } = setup()
    const big = { contents: [{ uri: 'a://b', text: 'x'.repeat(3000) }] }
    inbound(read(5))
    inbound(read(5))
    expect((await answer(5, big)).error?.code).toBe(-32000)
    expect((await answer(5, big)).error?.code).toBe(-32000)
    // Both reads of id 5 answered: a later answer with that id is not a read's.
    expect((await answer(5, big)).result).toBe(big)
    inbound(read(6))
    const progress = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { requestId: 6, progressToken: 6, progress: 1 },
    }
    inbound(progress)
    expect((await answer(6, big)).error?.code).toBe(-32000)
    const bare = { jsonrpc: '2.0', method: 'notifications/cancelled' }
    inbound(bare)
    expect(delivered.slice(-2)).toEqual([progress, bare])
  })

  it('replaces a refused tool result with a JSON-RPC 2.0 answer to the same id', async () => {
    const { inbound, answer } = setup()
    inbound(call('c'))
    expect(await answer('c', plain(3000))).toEqual({
      jsonrpc: '2.0',
      id: 'c',
      result: expect.objectContaining({ isError: true }),
    })
  })

  it('passes a null result through unchanged', async () => {
    const { answer } = setup()
    expect(await answer(9, null)).toEqual({ jsonrpc: '2.0', id: 9, result: null })
  })

  it('takes a message with an id but no result or error for no answer, and still charges the real one', async () => {
    const { budget, inbound, sent, answer } = setup()
    inbound(call(2))
    await budget.send({ jsonrpc: '2.0', id: 2 } as Msg)
    expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', id: 2 })
    expect((await answer(2, plain(3000))).result.isError).toBe(true)
  })

  it('charges a resources/read answer to an id also used by a tools/call as a tool result', async () => {
    const { inbound, answer } = setup()
    inbound(call(1))
    inbound(read(1))
    expect((await answer(1, plain(3000))).result.isError).toBe(true)
  })
})

describe('toolErrorResult', () => {
  it('names the code and the budget for an oversized result, the code and message otherwise', () => {
    expect(toolErrorResult(admissionError('ERR_JSON_TOO_LARGE', { limit: 2000 }))).toEqual({
      content: [
        {
          type: 'text',
          text: 'ERR_JSON_TOO_LARGE: tool result exceeds the result budget (limit 2000 bytes); lower the result size or raise maxResultBytes',
        },
      ],
      isError: true,
    })
    expect(toolErrorResult(admissionError('ERR_JSON_TOO_LARGE')).content[0]?.text).toBe(
      'ERR_JSON_TOO_LARGE: tool result exceeds the result budget; lower the result size or raise maxResultBytes',
    )
    const deep = admissionError('ERR_JSON_TOO_DEEP', { limit: 3 })
    expect(toolErrorResult(deep).content[0]?.text).toBe(`ERR_JSON_TOO_DEEP: ${deep.message}`)
  })
})
