// The onRefusal hook: every refusal the decorator answers reaches it once, with its precise
// reason and no caller bytes. Through the SDK's in-memory pair with raw JSON-RPC messages.

import { describe, expect, it } from 'vitest'
import {
  type InputValidationOptions,
  REUSED_ID_ERROR,
  type RefusalEvent,
  resolveInputValidationOptions,
  UNKNOWN_TOOL_ERROR,
  withInputValidation,
} from '../src/index.js'
import {
  fixtureRegistry,
  inMemorySession,
  type Json,
  stubTransport,
  toolCall,
} from './helpers/raw-clients.js'

const MARKER = 'MARKER-5eed-91'
const VALID = { projectId: 'acme', query: 'roadmap' }

function deep(levels: number): unknown {
  let v: unknown = []
  for (let i = 0; i < levels; i++) v = [v]
  return v
}

describe('withInputValidation onRefusal', () => {
  it('reports each refusal once with its reason, and never a caller byte', async () => {
    const events: RefusalEvent[] = []
    const session = await inMemorySession(true, {
      surface: ['notes.search', 'notes.batch', 'notes.unpublished'],
      onRefusal: (e) => events.push(e),
      // Every refusal as it happens (the repeat window is tested below).
      refusalWindowMs: 0,
    })
    try {
      await session.request([
        toolCall(1, `${MARKER}.tool`, {}),
        toolCall(2, 'notes.get', { projectId: 'acme', noteId: 'n-1' }),
        toolCall(3, 'notes.unpublished', { q: MARKER }),
        { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 3 } },
        toolCall(5, 'notes.search', { ...VALID, [MARKER]: MARKER }),
        toolCall(6, 'notes.batch', { projectId: 'acme', items: deep(40) }),
        toolCall(7, 'notes.search', { ...VALID, query: 'x'.repeat(201) }),
        toolCall(8, 'notes.search', VALID),
      ])
      expect(events).toEqual([
        ev({ reason: 'off_surface', nameLength: `${MARKER}.tool`.length }),
        ev({ reason: 'off_surface', nameLength: 'notes.get'.length }),
        ev({ reason: 'unpublished', nameLength: 'notes.unpublished'.length }),
        ev({ reason: 'malformed' }),
        ev({
          reason: 'schema',
          tool: 'notes.search',
          keyword: 'unevaluatedProperties',
          pointer: `/${MARKER}`,
        }),
        ev({
          reason: 'bounds',
          tool: 'notes.batch',
          code: 'ERR_JSON_TOO_DEEP',
          pointer: expect.stringMatching(/^\/items/) as unknown as string,
        }),
        ev({ reason: 'schema', tool: 'notes.search', keyword: 'maxLength', pointer: '/query' }),
      ])
      // A key may be named in the pointer, bounded, as the refusal itself names it; a value
      // never: the marker appears only as the key of event 5.
      const withoutKey = JSON.stringify(events.filter((_, i) => i !== 4))
      expect(withoutKey).not.toContain(MARKER)
      expect(session.calls.map((c) => c.tool)).toEqual(['notes.search'])
    } finally {
      await session.close()
    }
  })

  it('reports a reused in-flight id with its method', async () => {
    // A stub transport (no SDK server behind it, so nothing answers the first request): the
    // second request under the same id is refused and reported.
    const { stub, sent } = stubTransport()
    const events: RefusalEvent[] = []
    const decorated = withInputValidation(stub, fixtureRegistry(), {
      onRefusal: (e) => events.push(e),
    })
    const delivered: unknown[] = []
    decorated.onmessage = (m) => delivered.push(m)
    const list = { jsonrpc: '2.0', id: 11, method: 'tools/list' }
    stub.onmessage?.(list as never)
    stub.onmessage?.({ ...list, method: 'ping' } as never)
    await new Promise((resolve) => setImmediate(resolve))
    expect(delivered).toEqual([list])
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 11, error: REUSED_ID_ERROR }])
    expect(events).toEqual([ev({ reason: 'reused_id', method: 'ping' })])
    // Cancelling the first frees its id on the next turn (the SDK aborts it a microtask after
    // the cancellation is delivered); until then the id is still refused as reused.
    stub.onmessage?.({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 11 },
    } as never)
    stub.onmessage?.({ ...list, method: 'ping' } as never)
    expect(delivered).toHaveLength(2)
    expect(sent).toHaveLength(2)
    await new Promise((resolve) => setImmediate(resolve))
    stub.onmessage?.({ ...list, method: 'ping' } as never)
    expect(delivered).toHaveLength(3)
  })

  it('answers the refusal even when the hook throws, and the error goes to onerror', async () => {
    const session = await inMemorySession(true, {
      onRefusal: () => {
        throw new Error('audit sink down')
      },
    })
    try {
      const { parsed } = await session.request(toolCall(1, 'nope', {}))
      expect((parsed[0] as Json).error).toEqual({ code: -32602, message: 'Unknown tool' })
    } finally {
      await session.close()
    }
  })

  it('reports nothing to onerror when no hook is set', async () => {
    const { stub, sent, errors } = stubbed({})
    stub.onmessage?.(toolCall(1, 'nope', {}) as never)
    await settle()
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 1, error: UNKNOWN_TOOL_ERROR }])
    expect(errors).toEqual([])
  })

  it('hands the error a throwing hook raised to onerror, and still answers the refusal', async () => {
    const failure = new Error('audit sink down')
    const { stub, sent, errors } = stubbed({
      onRefusal: () => {
        throw failure
      },
    })
    stub.onmessage?.(toolCall(1, 'nope', {}) as never)
    await settle()
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 1, error: UNKNOWN_TOOL_ERROR }])
    expect(errors).toEqual([failure])
  })

  it('answers the refusal when the hook throws and nothing listens on onerror', async () => {
    const { stub, decorated, sent } = stubbed({
      onRefusal: () => {
        throw new Error('audit sink down')
      },
    })
    decorated.onerror = undefined
    stub.onmessage?.(toolCall(1, 'nope', {}) as never)
    await settle()
    // Not the decorator's fail-closed -32603 Internal error: the refusal itself.
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 1, error: UNKNOWN_TOOL_ERROR }])
  })

  it('refuses a non-function hook at construction with a TypeError', () => {
    expect(() => resolveInputValidationOptions({ onRefusal: 'audit' as never })).toThrow(
      /onRefusal/,
    )
  })
})

/** A decorator over a stub transport (no SDK server behind it): what it sends and reports. */
function stubbed(options: InputValidationOptions) {
  const { stub, sent } = stubTransport()
  const errors: Error[] = []
  const decorated = withInputValidation(stub, fixtureRegistry(), options)
  decorated.onmessage = () => {}
  decorated.onerror = (e) => errors.push(e)
  return { stub, decorated, sent, errors }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

function ev(fields: Partial<RefusalEvent>): RefusalEvent {
  return {
    method: 'tools/call',
    tool: undefined,
    nameLength: undefined,
    code: undefined,
    keyword: undefined,
    pointer: undefined,
    ...fields,
  } as RefusalEvent
}

describe('withInputValidation refusalWindowMs', () => {
  const REFUSALS = 5_000
  const burst = () =>
    Array.from({ length: REFUSALS }, (_, i) =>
      toolCall(i + 1, 'notes.search', { ...VALID, [`k${i}`]: MARKER }),
    )

  it(`reports ${REFUSALS.toLocaleString('en-US')} refusals of one kind as one event, then one counting the repeats at close`, async () => {
    const events: RefusalEvent[] = []
    const session = await inMemorySession(true, { onRefusal: (e) => events.push(e) })
    try {
      const { parsed } = await session.request(burst())
      // Every caller still gets its own refusal; only the reports are aggregated.
      expect(parsed.filter((m) => (m.result as Json | undefined)?.isError === true)).toHaveLength(
        REFUSALS,
      )
      expect(events).toHaveLength(1)
    } finally {
      await session.close()
    }
    expect(events).toEqual([
      expect.objectContaining({
        reason: 'schema',
        keyword: 'unevaluatedProperties',
        repeated: undefined,
        pointer: '/k0',
      }),
      expect.objectContaining({
        reason: 'schema',
        tool: 'notes.search',
        keyword: 'unevaluatedProperties',
        repeated: REFUSALS - 1,
        pointer: undefined,
      }),
    ])
    expect(session.calls).toEqual([])
  })

  it('reports every refusal with refusalWindowMs 0 (the control)', async () => {
    const events: RefusalEvent[] = []
    const session = await inMemorySession(true, {
      onRefusal: (e) => events.push(e),
      refusalWindowMs: 0,
    })
    try {
      await session.request(burst())
    } finally {
      await session.close()
    }
    expect(events).toHaveLength(REFUSALS)
  })
})
