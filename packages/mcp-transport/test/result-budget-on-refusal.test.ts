import type { RefusalEvent } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { createResultBudget } from '../src/index.js'
import { recordingTransport } from './helpers/recording-transport.js'

const big = { content: [{ type: 'text', text: 'x'.repeat(2000) }] }
const small = { content: [{ type: 'text', text: 'ok' }] }

function decorated(onRefusal?: (event: RefusalEvent) => void) {
  const { inner, sent, inbound } = recordingTransport()
  const budget = createResultBudget({ maxResultBytes: 2048, envelopeReserveBytes: 48, onRefusal })
  const transport = budget.decorate(inner)
  transport.onmessage = () => {}
  return { sent, transport, inbound }
}

describe('createResultBudget onRefusal', () => {
  it('reports each replaced result once with its code and limit, and nothing for one that fits', async () => {
    const events: RefusalEvent[] = []
    const { sent, transport, inbound } = decorated((event) => {
      events.push(event)
    })
    inbound({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } })
    inbound({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'x:y' } })
    inbound({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo' } })
    await transport.send({ jsonrpc: '2.0', id: 1, result: big })
    await transport.send({
      jsonrpc: '2.0',
      id: 2,
      result: { contents: [{ uri: 'x:y', text: 'y'.repeat(3000) }] },
    })
    await transport.send({ jsonrpc: '2.0', id: 3, result: small })
    expect(sent[0].result.isError).toBe(true)
    expect(sent[1].error.data.code).toBe('ERR_JSON_TOO_LARGE')
    expect(sent[2].result).toEqual(small)
    expect(events).toEqual([
      { code: 'ERR_JSON_TOO_LARGE', status: undefined, limit: 2000, control: 'mcp-result-budget' },
      { code: 'ERR_JSON_TOO_LARGE', status: undefined, limit: 2000, control: 'mcp-result-budget' },
    ])
  })

  it('replaces the result the same way when the hook throws', async () => {
    const { sent, transport, inbound } = decorated(() => {
      throw new Error('broken sink')
    })
    inbound({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } })
    await transport.send({ jsonrpc: '2.0', id: 1, result: big })
    expect(sent[0].result.isError).toBe(true)
    expect(sent[0].result.content[0].text).toContain('ERR_JSON_TOO_LARGE')
  })

  it('refuses a hook that is not a function at construction', () => {
    expect(() => createResultBudget({ onRefusal: 'log' as never })).toThrow(TypeError)
  })
})
