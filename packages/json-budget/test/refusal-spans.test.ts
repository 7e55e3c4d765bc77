import { describe, expect, it } from 'vitest'
import {
  REFUSAL_SPAN_EVENT,
  type RefusalEvent,
  refusalEvent,
  refusalHooks,
  refusalSpanEvents,
  reportRefusal,
} from '../src/index.js'

/** A span that records its events, and a `trace` whose active span is whatever `active` holds. */
function tracer() {
  const events: { name: string; attributes?: Record<string, string | number> }[] = []
  const span = {
    addEvent: (name: string, attributes?: Record<string, string | number>) =>
      events.push({ name, attributes }),
  }
  const state: { active: typeof span | undefined } = { active: span }
  return { events, state, trace: { getActiveSpan: () => state.active } }
}

const TOO_LARGE = refusalEvent(
  { code: 'ERR_BODY_TOO_LARGE', status: 413, limit: 1024, option: 'maxBytes' },
  'body-admission',
  { route: 'notes', principal: 'anonymous#00ff' },
)

describe('refusalSpanEvents', () => {
  it('adds one tollgate.refusal event to the active span with the event fields as attributes', () => {
    const { events, trace } = tracer()
    reportRefusal(refusalSpanEvents(trace), TOO_LARGE)
    expect(events).toEqual([
      {
        name: REFUSAL_SPAN_EVENT,
        attributes: {
          'tollgate.refusal.code': 'ERR_BODY_TOO_LARGE',
          'tollgate.refusal.control': 'body-admission',
          'tollgate.refusal.status': 413,
          'tollgate.refusal.limit': 1024,
          'tollgate.refusal.option': 'maxBytes',
          'tollgate.refusal.route': 'notes',
          'tollgate.refusal.principal': 'anonymous#00ff',
        },
      },
    ])
  })

  it('leaves out the fields an event does not have, and does nothing outside a span', () => {
    const { events, state, trace } = tracer()
    const hook = refusalSpanEvents(trace)
    const stdio: RefusalEvent = refusalEvent({ code: 'ERR_JSON_SYNTAX' }, 'mcp-stdio')
    hook(stdio)
    expect(events[0]?.attributes).toEqual({
      'tollgate.refusal.code': 'ERR_JSON_SYNTAX',
      'tollgate.refusal.control': 'mcp-stdio',
    })
    state.active = undefined
    hook(stdio)
    expect(events).toHaveLength(1)
  })

  it('refuses a trace without getActiveSpan at construction', () => {
    expect(() => refusalSpanEvents({} as never)).toThrow(TypeError)
  })
})

describe('refusalHooks', () => {
  it('calls every hook in order, and one that throws or rejects never stops the next', async () => {
    const seen: string[] = []
    const hook = refusalHooks(
      () => {
        throw new Error('broken sink')
      },
      undefined,
      async () => {
        seen.push('async')
        throw new Error('rejected')
      },
      (event) => {
        seen.push(event.code)
      },
    )
    reportRefusal(hook, TOO_LARGE)
    await new Promise((resolve) => setImmediate(resolve))
    expect(seen).toEqual(['async', 'ERR_BODY_TOO_LARGE'])
  })

  it('refuses an entry that is not a function', () => {
    expect(() => refusalHooks('log' as never)).toThrow(TypeError)
  })
})
