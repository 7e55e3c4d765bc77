// isJsonRpcMessage against the envelope check of both SDK lines (1.32 `JSONRPCMessageSchema`,
// 2.x's four `isJSONRPC…` guards, which are the same union), on a table of edge cases and on
// generated envelopes: the bounded transport must refuse what either SDK refuses and deliver
// what they deliver, without loading either.
import { fc, test } from '@fast-check/vitest'
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js'
import * as v2 from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import { isJsonRpcMessage } from '../src/json-rpc-message.js'

const v1Accepts = (value: unknown) => JSONRPCMessageSchema.safeParse(value).success
const v2Accepts = (value: unknown) =>
  v2.isJSONRPCRequest(value) ||
  v2.isJSONRPCNotification(value) ||
  v2.isJSONRPCResultResponse(value) ||
  v2.isJSONRPCErrorResponse(value)

const CASES: [string, unknown][] = [
  ['request', { jsonrpc: '2.0', id: 1, method: 'ping' }],
  ['request, string id, params', { jsonrpc: '2.0', id: 'a', method: 'x', params: { a: [1] } }],
  ['notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ['result', { jsonrpc: '2.0', id: 1, result: {} }],
  ['error, no id', { jsonrpc: '2.0', error: { code: -32600, message: 'm', data: 1 } }],
  ['error, id', { jsonrpc: '2.0', id: 2, error: { code: 1, message: 'm' } }],
  ['an extra top-level key', { jsonrpc: '2.0', id: 1, method: 'ping', x: true }],
  ['a __proto__ key', JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{}}')],
  ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'ping' }],
  ['no jsonrpc', { id: 1, method: 'ping' }],
  ['null id', { jsonrpc: '2.0', id: null, method: 'ping' }],
  ['fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }],
  ['unsafe integer id', { jsonrpc: '2.0', id: 2 ** 53, method: 'ping' }],
  ['numeric method', { jsonrpc: '2.0', id: 1, method: 7 }],
  ['array params', { jsonrpc: '2.0', id: 1, method: 'x', params: [1] }],
  ['null params', { jsonrpc: '2.0', id: 1, method: 'x', params: null }],
  [
    'bad progressToken',
    { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: {} } } },
  ],
  [
    'good progressToken',
    { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 't' } } },
  ],
  ['array _meta', { jsonrpc: '2.0', method: 'x', params: { _meta: [] } }],
  [
    'related task without taskId',
    {
      jsonrpc: '2.0',
      method: 'x',
      params: { _meta: { 'io.modelcontextprotocol/related-task': {} } },
    },
  ],
  [
    'related task with taskId',
    {
      jsonrpc: '2.0',
      method: 'x',
      params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } },
    },
  ],
  [
    'related task with a numeric taskId',
    {
      jsonrpc: '2.0',
      method: 'x',
      params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 1 } } },
    },
  ],
  ['notification with params', { jsonrpc: '2.0', method: 'x', params: { a: 1 } }],
  ['error, null id', { jsonrpc: '2.0', id: null, error: { code: 1, message: 'm' } }],
  ['error, fractional id', { jsonrpc: '2.0', id: 1.5, error: { code: 1, message: 'm' } }],
  ['only jsonrpc', { jsonrpc: '2.0' }],
  ['result without id', { jsonrpc: '2.0', result: {} }],
  ['array result', { jsonrpc: '2.0', id: 1, result: [] }],
  ['error with string code', { jsonrpc: '2.0', id: 1, error: { code: '1', message: 'm' } }],
  ['error without message', { jsonrpc: '2.0', id: 1, error: { code: 1 } }],
  ['result and error', { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } }],
  ['method and result', { jsonrpc: '2.0', id: 1, method: 'x', result: {} }],
  ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'ping' }]],
  ['a string', '2.0'],
  ['null', null],
]

describe('isJsonRpcMessage', () => {
  it.each(CASES)('agrees with both SDK lines on %s', (_name, value) => {
    const expected = v1Accepts(value)
    expect(v2Accepts(value)).toBe(expected)
    expect(isJsonRpcMessage(value)).toBe(expected)
  })

  const id = fc.oneof(
    fc.string({ maxLength: 3 }),
    fc.integer(),
    fc.double(),
    fc.constant(null),
    fc.boolean(),
  )
  const meta = fc.oneof(
    fc.record({ progressToken: id }, { requiredKeys: [] }),
    fc.constant([]),
    fc.constant('m'),
  )
  const open = fc.oneof(
    fc.record({ _meta: meta, a: fc.integer() }, { requiredKeys: [] }),
    fc.constant([]),
    fc.constant(null),
    fc.constant(1),
  )
  const envelope = fc.record(
    {
      jsonrpc: fc.constantFrom('2.0', '1.0', 2),
      id,
      method: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()),
      params: open,
      // Results with a `_meta` are left out: 2.x reads a result's `_meta` more loosely than
      // 1.32 (an inbound result answers a server-to-client request; see the README).
      result: fc.oneof(fc.record({ a: fc.integer() }, { requiredKeys: [] }), fc.constant([])),
      error: fc.record(
        {
          code: fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 2 })),
          message: fc.oneof(fc.string({ maxLength: 2 }), fc.integer()),
          data: fc.anything(),
        },
        { requiredKeys: [] },
      ),
      extra: fc.boolean(),
    },
    { requiredKeys: [] },
  )

  test.prop([envelope], { numRuns: 2000 })(
    'agrees with both SDK lines on generated envelopes',
    (value) => {
      const expected = v1Accepts(value)
      expect(v2Accepts(value)).toBe(expected)
      expect(isJsonRpcMessage(value)).toBe(expected)
    },
  )
})
