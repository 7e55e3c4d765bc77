// When a cancelled request's id is freed. The decorator frees it on the turn after the
// notifications/cancelled (the SDK aborts the request a microtask after delivery), only for a
// cancellation, and only if the entry it was asked to free is still the one under that id.
// Driven through a stub transport with no SDK behind it, so nothing answers a request unless the
// test sends the response itself.
import { describe, expect, it } from 'vitest'
import { REUSED_ID_ERROR, withInputValidation } from '../src/index.js'
import { fixtureRegistry, type Json, stubTransport } from './helpers/raw-clients.js'

function stubbed() {
  const { stub, sent } = stubTransport()
  const decorated = withInputValidation(stub, fixtureRegistry())
  const delivered: Json[] = []
  decorated.onmessage = (m) => delivered.push(m as Json)
  const inbound = (m: Json) => stub.onmessage?.(m as never)
  return { decorated, sent, delivered, inbound }
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))
const LIST = { jsonrpc: '2.0', id: 11, method: 'tools/list' }
const CALL = {
  jsonrpc: '2.0',
  id: 11,
  method: 'tools/call',
  params: { name: 'system.ping', arguments: {} },
}
const REFUSED = { jsonrpc: '2.0', id: 11, error: REUSED_ID_ERROR }

describe('the release of a cancelled id', () => {
  it('keeps an id in flight past the next turn when a request other than a cancellation names it in params.requestId', async () => {
    const { sent, delivered, inbound } = stubbed()
    inbound(LIST)
    inbound({ jsonrpc: '2.0', id: 12, method: 'ping', params: { requestId: 11 } })
    await nextTurn()
    inbound(CALL)
    expect(delivered.map((m) => m.method)).toEqual(['tools/list', 'ping'])
    expect(sent).toEqual([REFUSED])
  })

  it('frees a cancelled id on the next turn, not in the turn of the cancellation', async () => {
    const { sent, delivered, inbound } = stubbed()
    inbound(LIST)
    inbound({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 11 } })
    inbound(CALL)
    expect(sent).toEqual([REFUSED])
    await nextTurn()
    inbound(CALL)
    expect(delivered.map((m) => m.method)).toEqual([
      'tools/list',
      'notifications/cancelled',
      'tools/call',
    ])
  })

  it('does not free a new request that took the id after the cancelled one was answered', async () => {
    const { decorated, sent, delivered, inbound } = stubbed()
    inbound(LIST)
    inbound({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 11 } })
    // The list's answer was already on its way: it settles the entry, and a new list takes id 11.
    await decorated.send({ jsonrpc: '2.0', id: 11, result: { tools: [] } } as never)
    inbound(LIST)
    await nextTurn()
    inbound(CALL)
    expect(delivered.map((m) => m.method)).toEqual([
      'tools/list',
      'notifications/cancelled',
      'tools/list',
    ])
    expect(sent.at(-1)).toEqual(REFUSED)
  })
})
