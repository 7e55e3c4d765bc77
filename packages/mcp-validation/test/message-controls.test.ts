// The MCP message controls composed in one place: validation next to the wire, the result
// budget next to the server. Over the SDK's in-memory pair with a raw JSON-RPC client that
// ignores the published schemas; `calls` is the handler sentinel.
import type { RefusalEvent } from '@tollgate/json-budget'
import { createResultBudget } from '@tollgate/mcp-transport'
import { describe, expect, it } from 'vitest'
import { inputValidation, mcpMessageControls, UNKNOWN_TOOL_ERROR } from '../src/index.js'
import {
  fixtureRegistry,
  inMemorySessionWith,
  type Json,
  type RawSession,
  toolCall,
} from './helpers/raw-clients.js'

// 100 bytes for the result object: a served ping fits, a 200-character query echoed back and a
// validation refusal do not.
const TIGHT = { maxResultBytes: 1124, envelopeReserveBytes: 1024 }
const CONTEXT = { projectId: 'p-1' }

function resultOf(parsed: Json[]): { isError?: boolean; content: { text: string }[] } {
  return (parsed[0] as Json).result as { isError?: boolean; content: { text: string }[] }
}

async function withSession(
  connect: Parameters<typeof inMemorySessionWith>[0],
  run: (session: RawSession) => Promise<void>,
): Promise<void> {
  const session = await inMemorySessionWith(connect)
  try {
    await run(session)
  } finally {
    await session.close()
  }
}

describe('mcpMessageControls', () => {
  const controls = mcpMessageControls({
    validation: inputValidation(fixtureRegistry()),
    resultBudget: createResultBudget(TIGHT),
  })

  it('refuses an unknown argument key before the handler runs, and replaces an oversized result', async () => {
    await withSession(
      (server, t) => server.connect(controls.decorate(t) as never),
      async (session) => {
        const refused = resultOf(
          (await session.request(toolCall(1, 'system.ping', { x: 1 }))).parsed,
        )
        expect(refused.isError).toBe(true)
        expect(session.calls).toEqual([])
        const query = 'q'.repeat(200)
        const big = (await session.request(toolCall(2, 'notes.search', { ...CONTEXT, query })))
          .parsed
        expect(resultOf(big)).toMatchObject({ isError: true })
        expect(resultOf(big).content[0]?.text).toMatch(/^ERR_JSON_TOO_LARGE/)
        expect(JSON.stringify(big)).not.toContain(query)
        const ping = resultOf((await session.request(toolCall(3, 'system.ping', {}))).parsed)
        expect(ping.isError).toBeUndefined()
        expect(session.calls.map((c) => c.tool)).toEqual(['notes.search', 'system.ping'])
      },
    )
  })

  it('answers a validation refusal past the budget intact: validation sits next to the wire', async () => {
    await withSession(
      (server, t) => server.connect(controls.decorate(t) as never),
      async (session) => {
        const { parsed } = await session.request(toolCall(1, 'system.ping', { x: 1 }))
        const refusal = resultOf(parsed)
        // The premise: this refusal alone is over the result budget.
        expect(Buffer.byteLength(JSON.stringify(refusal))).toBeGreaterThan(100)
        expect(refusal.isError).toBe(true)
        expect(refusal.content[0]?.text).not.toMatch(/ERR_JSON_TOO_LARGE/)
        expect(session.calls).toEqual([])
      },
    )
  })

  it('turns the same refusal into ERR_JSON_TOO_LARGE when a host nests the two the other way (order removed)', async () => {
    const validation = inputValidation(fixtureRegistry())
    const budget = createResultBudget(TIGHT)
    await withSession(
      (server, t) => server.connect(validation.decorate(budget.decorate(t)) as never),
      async (session) => {
        const { parsed } = await session.request(toolCall(1, 'system.ping', { x: 1 }))
        expect(resultOf(parsed).content[0]?.text).toMatch(/^ERR_JSON_TOO_LARGE/)
        expect(session.calls).toEqual([])
      },
    )
  })

  it('lets the unknown key and the oversized result through when no control is held (control removed)', async () => {
    await withSession(
      (server, t) => server.connect(mcpMessageControls({}).decorate(t) as never),
      async (session) => {
        const query = 'q'.repeat(200)
        const { parsed } = await session.request(
          toolCall(1, 'notes.search', { ...CONTEXT, query, extra: 'dropped' }),
        )
        expect(resultOf(parsed).isError).toBeUndefined()
        expect(resultOf(parsed).content[0]?.text).toContain(query)
        expect(session.calls.map((c) => c.tool)).toEqual(['notes.search'])
      },
    )
  })

  it('judges against the surface and reports to the hook a connection gives, through guard', async () => {
    const events: RefusalEvent[] = []
    // The test server registers a tool with no published schema: warned about, not refused.
    const warning = mcpMessageControls({
      validation: inputValidation(fixtureRegistry(), { unpublishedTools: 'warn' }),
      resultBudget: createResultBudget(TIGHT),
    })
    await withSession(
      (server, t) =>
        warning
          .guard(server, { surface: ['system.ping'], onRefusal: (e) => events.push(e) })
          .connect(t),
      async (session) => {
        const { parsed } = await session.request(
          toolCall(1, 'notes.search', { ...CONTEXT, query: 'a' }),
        )
        expect((parsed[0] as Json).error).toEqual({ ...UNKNOWN_TOOL_ERROR })
        expect(events).toMatchObject([{ code: 'ERR_TOOL_UNKNOWN', control: 'mcp-tool-surface' }])
        expect(
          resultOf((await session.request(toolCall(2, 'system.ping', {}))).parsed).isError,
        ).toBeUndefined()
        expect(session.calls.map((c) => c.tool)).toEqual(['system.ping'])
      },
    )
  })

  it("reports a replaced result with the connection's route and principal, to the connection's hook", async () => {
    const events: RefusalEvent[] = []
    const call = {
      route: 'notes',
      principal: 'cred:ada',
      onRefusal: (e: RefusalEvent) => events.push(e),
    }
    const query = 'q'.repeat(200)
    await withSession(
      (server, t) => server.connect(controls.decorate(t, call) as never),
      async (session) => {
        const big = (await session.request(toolCall(1, 'notes.search', { ...CONTEXT, query })))
          .parsed
        expect(resultOf(big).content[0]?.text).toMatch(/^ERR_JSON_TOO_LARGE/)
        expect(session.calls.map((c) => c.tool)).toEqual(['notes.search'])
      },
    )
    expect(events).toEqual([
      {
        code: 'ERR_JSON_TOO_LARGE',
        status: undefined,
        limit: 100,
        control: 'mcp-result-budget',
        route: 'notes',
        principal: 'cred:ada',
      },
    ])
    expect(JSON.stringify(events)).not.toContain(query)
  })

  it('throws a TypeError at construction on a look-alike validation or a budget without decorate', () => {
    const real = inputValidation(fixtureRegistry())
    expect(() =>
      mcpMessageControls({ validation: { ...real, decorate: real.decorate } as never }),
    ).toThrow(TypeError)
    expect(() => mcpMessageControls({ resultBudget: {} as never })).toThrow(TypeError)
    expect(() => mcpMessageControls(null as never)).toThrow(TypeError)
  })
})

describe('inputValidation', () => {
  it('throws a TypeError at construction on a bad registry or bad options', () => {
    expect(() => inputValidation({} as never)).toThrow(TypeError)
    expect(() => inputValidation(fixtureRegistry(), { maxDepth: 65 })).toThrow(TypeError)
    expect(() =>
      inputValidation(fixtureRegistry()).decorate(
        { send: async () => {}, start: async () => {}, close: async () => {} },
        { surface: 'system.ping' as never },
      ),
    ).toThrow(TypeError)
  })
})
