// The reference server's audit of input-validation refusals and replaced results (`sessionCall`
// of controls.ts): every refusal reaches the hook (json-budget's RefusalEvent), and the audit
// writes one `call_refused` (or `result_refused`) line per kind at once and one closing line
// counting the repeats of the window, so a burst of refused calls costs two lines, not one per
// call. Fake timers stand in for the 10 s window.
import { refusalEvent } from '@tollgate/json-budget'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CALL_REFUSAL_WINDOW_MS, sessionCall } from '../src/controls.js'
import type { Route } from '../src/surfaces.js'

afterEach(() => {
  vi.useRealTimers()
})

// The two fields sessionCall reads of a route; the routes' own module is not needed here.
const ROUTE = { name: 'public', view: { names: new Set(['knowledge.search']) } } as unknown as Route

function session() {
  const lines: { event: string; fields: Record<string, unknown> }[] = []
  const call = sessionCall({
    route: ROUTE,
    credentialId: 'alice',
    audit: (event, fields = {}) => lines.push({ event, fields }),
  })
  return { lines, call }
}

const schema = refusalEvent({ code: 'ERR_TOOL_ARGUMENTS' }, 'mcp-tool-schema')
const unknown = refusalEvent({ code: 'ERR_TOOL_UNKNOWN' }, 'mcp-tool-surface')

describe('sessionCall', () => {
  it('names the route and the credential as the connection’s route and principal', () => {
    const { call } = session()
    expect(call).toMatchObject({ route: ROUTE.name, principal: 'alice' })
  })

  it('writes a burst of one kind as one line at once and one closing line with repeated', () => {
    vi.useFakeTimers()
    const { lines, call } = session()
    for (let i = 0; i < 1000; i++) call.onRefusal?.(schema)
    expect(lines).toEqual([
      {
        event: 'call_refused',
        fields: {
          layer: 'input_validation',
          code: 'ERR_TOOL_ARGUMENTS',
          control: 'mcp-tool-schema',
          route: ROUTE.name,
          credential: 'alice',
        },
      },
    ])
    vi.advanceTimersByTime(CALL_REFUSAL_WINDOW_MS + 1)
    expect(lines).toHaveLength(2)
    expect(lines[1]?.fields).toMatchObject({ code: 'ERR_TOOL_ARGUMENTS', repeated: 999 })
  })

  it('writes a replaced result as result_refused with its limit, the route and the credential', () => {
    const { lines, call } = session()
    call.onRefusal?.(
      refusalEvent({ code: 'ERR_JSON_TOO_LARGE', limit: 68_976 }, 'mcp-result-budget', {
        route: 'full',
        principal: 'alice',
      }),
    )
    expect(lines).toEqual([
      {
        event: 'result_refused',
        fields: {
          layer: 'result_budget',
          code: 'ERR_JSON_TOO_LARGE',
          control: 'mcp-result-budget',
          limit: 68_976,
          route: ROUTE.name,
          credential: 'alice',
        },
      },
    ])
  })

  it('names an anonymous session by its pool and a keyed hash of its caller key, never the address', () => {
    const call = sessionCall({
      route: ROUTE,
      credentialId: 'anonymous:peer:anonymous@ip:203.0.113.7',
      quotaKey: 'anonymous@ip:203.0.113.7',
      audit: () => {},
    })
    expect(call.principal).toMatch(/^anonymous#[0-9a-f]{16}$/)
    expect(call.principal).not.toContain('203.0.113.7')
  })

  it('writes each kind at once: two kinds, two lines (the window counts only repeats)', () => {
    vi.useFakeTimers()
    const { lines, call } = session()
    call.onRefusal?.(schema)
    call.onRefusal?.(unknown)
    expect(lines.map((l) => l.fields.control)).toEqual(['mcp-tool-schema', 'mcp-tool-surface'])
  })
})
