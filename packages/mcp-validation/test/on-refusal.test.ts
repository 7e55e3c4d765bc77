// The onRefusal hook: every refusal the decorator answers reaches it once, as json-budget's
// RefusalEvent: the code, the step that refused as `control`, the connection's route and
// principal, and no caller bytes. Through the SDK's in-memory pair with raw JSON-RPC messages.

import type { RefusalEvent } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import {
  type InputValidationOptions,
  inputValidation,
  REUSED_ID_ERROR,
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
  it('reports each refusal once with its code and step, and never a caller byte', async () => {
    const events: RefusalEvent[] = []
    const session = await inMemorySession(true, {
      surface: ['notes.search', 'notes.batch', 'notes.unpublished'],
      onRefusal: (e) => events.push(e),
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
        ev('ERR_TOOL_UNKNOWN', 'mcp-tool-surface'),
        ev('ERR_TOOL_UNKNOWN', 'mcp-tool-surface'),
        ev('ERR_TOOL_UNKNOWN', 'mcp-tool-published'),
        ev('ERR_TOOL_UNKNOWN', 'mcp-tool-params'),
        ev('ERR_TOOL_ARGUMENTS', 'mcp-tool-schema'),
        { ...ev('ERR_JSON_TOO_DEEP', 'mcp-tool-bounds'), limit: 32, option: 'maxDepth' },
        ev('ERR_TOOL_ARGUMENTS', 'mcp-tool-schema'),
      ])
      for (const event of events) expect(Object.isFrozen(event)).toBe(true)
      expect(JSON.stringify(events)).not.toContain(MARKER)
      expect(session.calls.map((c) => c.tool)).toEqual(['notes.search'])
    } finally {
      await session.close()
    }
  })

  it('reports a reused in-flight id as ERR_MCP_REUSED_ID from the request-id step', async () => {
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
    expect(events).toEqual([ev('ERR_MCP_REUSED_ID', 'mcp-request-id')])
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

  it('answers the refusal even when the hook throws', async () => {
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

  it('catches a throwing hook, as every control does, and still answers the refusal', async () => {
    const { stub, sent, errors } = stubbed({
      onRefusal: () => {
        throw new Error('audit sink down')
      },
    })
    stub.onmessage?.(toolCall(1, 'nope', {}) as never)
    await settle()
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 1, error: UNKNOWN_TOOL_ERROR }])
    expect(errors).toEqual([])
  })

  it('reports the route and principal the connection was decorated with', async () => {
    const events: RefusalEvent[] = []
    const { stub, sent } = stubTransport()
    const control = inputValidation(fixtureRegistry())
    const decorated = control.decorate(stub, {
      onRefusal: (e) => events.push(e),
      route: 'public',
      principal: 'cred:ada',
    })
    decorated.onmessage = () => {}
    stub.onmessage?.(toolCall(1, 'nope', {}) as never)
    await settle()
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 1, error: UNKNOWN_TOOL_ERROR }])
    expect(events).toEqual([
      { ...ev('ERR_TOOL_UNKNOWN', 'mcp-tool-published'), route: 'public', principal: 'cred:ada' },
    ])
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

function ev(code: string, control: string): RefusalEvent {
  return { code: code as RefusalEvent['code'], status: undefined, control }
}

describe('withInputValidation onRefusal (bursts)', () => {
  const REFUSALS = 5_000
  const burst = () =>
    Array.from({ length: REFUSALS }, (_, i) =>
      toolCall(i + 1, 'notes.search', { ...VALID, [`k${i}`]: MARKER }),
    )

  it(`reports every one of ${REFUSALS.toLocaleString('en-US')} refusals, so a counter counts them all`, async () => {
    const events: RefusalEvent[] = []
    const session = await inMemorySession(true, { onRefusal: (e) => events.push(e) })
    try {
      const { parsed } = await session.request(burst())
      expect(parsed.filter((m) => (m.result as Json | undefined)?.isError === true)).toHaveLength(
        REFUSALS,
      )
    } finally {
      await session.close()
    }
    expect(events).toHaveLength(REFUSALS)
    expect(session.calls).toEqual([])
  })
})
