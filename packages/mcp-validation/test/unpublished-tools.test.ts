// The start-up check, on the SDK line of this run (sdk1: 1.32, sdk2: 2.x): the test server
// registers `notes.unpublished` with no published schema. Through the control, connecting it
// fails naming the tool (or, with `warn`, warns once per name); without the check, the tool is
// served as one that silently vanished: left out of tools/list, answered as unknown, its
// handler never run. A raw in-memory client that ignores every schema drives the server.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  inputValidation,
  mcpMessageControls,
  UNKNOWN_TOOL_ERROR,
  UNPUBLISHED_TOOL_CODE,
  UnpublishedToolError,
  withInputValidation,
} from '../src/index.js'
import { createTestServer, type HandlerCall } from './fixtures/test-server.js'
import { fixtureRegistry, inMemorySessionWith, type Json, toolCall } from './helpers/raw-clients.js'
import { InMemoryTransport, McpServer } from './helpers/sdk-line.js'

const LIST = { jsonrpc: '2.0', id: 90, method: 'tools/list', params: {} }

// The warnings this process writes with the check's code, collected from the 'warning' event
// (emitWarning delivers it on a later tick).
let warnings: Error[] = []
const onWarning = (warning: Error) => {
  if ((warning as { code?: unknown }).code === UNPUBLISHED_TOOL_CODE) warnings.push(warning)
}
beforeEach(() => {
  warnings = []
  process.on('warning', onWarning)
})
afterEach(() => {
  process.off('warning', onWarning)
})
const settled = () => new Promise((resolve) => setImmediate(resolve))

function names(list: Json): string[] {
  return ((list.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name)
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  )
}

describe('InputValidation.connect', () => {
  it('warns by default, naming the tool, and connects a server whose unpublished tool stays refused', async () => {
    const control = inputValidation(fixtureRegistry())
    const session = await inMemorySessionWith((server, side) => control.connect(server, side))
    await settled()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ code: 'ERR_TOOL_UNPUBLISHED' })
    expect(warnings[0]?.message).toContain('notes.unpublished')
    const { parsed } = await session.request(toolCall(5, 'notes.unpublished', { q: 'x' }))
    expect(parsed[0]?.error).toEqual(UNKNOWN_TOOL_ERROR)
    expect(session.calls).toEqual([])
    await session.close()
  })

  it('rejects a server that registers a tool with no published schema, with ERR_TOOL_UNPUBLISHED and the tool name', async () => {
    const control = inputValidation(fixtureRegistry(), { unpublishedTools: 'error' })
    const server = createTestServer([])
    const [, serverSide] = InMemoryTransport.createLinkedPair()
    const error = await rejection(control.connect(server, serverSide))
    expect(error).toBeInstanceOf(UnpublishedToolError)
    expect(error).toMatchObject({ code: 'ERR_TOOL_UNPUBLISHED', tools: ['notes.unpublished'] })
    expect((error as Error).message).toContain('notes.unpublished')
    // Never connected: the transport was not started, so no one can call the server.
    expect(serverSide.onmessage).toBeUndefined()
  })

  it("with unpublishedTools: 'warn', connects and writes one warning per tool name across servers", async () => {
    const control = inputValidation(fixtureRegistry(), { unpublishedTools: 'warn' })
    const calls: HandlerCall[] = []
    const sessions = [
      await inMemorySessionWith((server, side) => control.connect(server, side)),
      await inMemorySessionWith((server, side) => control.connect(server, side)),
    ]
    await settled()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.message).toContain('notes.unpublished')
    // Warned, and still fail closed: the tool is not listed and is refused as unknown.
    const session = sessions[0]!
    const { parsed } = await session.request([LIST, toolCall(1, 'notes.unpublished', { q: 'x' })])
    expect(names(parsed[0]!)).not.toContain('notes.unpublished')
    expect(parsed[1]?.error).toEqual(UNKNOWN_TOOL_ERROR)
    expect([...session.calls, ...calls]).toEqual([])
    for (const s of sessions) await s.close()
  })

  it('connects a server whose every tool is published, without a warning', async () => {
    const control = inputValidation(fixtureRegistry(), { unpublishedTools: 'warn' })
    const server = new McpServer({ name: 'published-only', version: '1.0.0' })
    server.registerTool('system.ping', { description: 'Ping.' }, async () => ({ content: [] }))
    const [, serverSide] = InMemoryTransport.createLinkedPair()
    await control.connect(server, serverSide)
    await settled()
    expect(warnings).toEqual([])
    expect(serverSide.onmessage).toBeTypeOf('function')
    await server.close()
  })

  it('control: without the check (the decorator alone), the tool connects silently and vanishes', async () => {
    const session = await inMemorySessionWith((server, side) =>
      server.connect(withInputValidation(side, fixtureRegistry())),
    )
    await settled()
    expect(warnings).toEqual([])
    const { parsed } = await session.request([LIST, toolCall(3, 'notes.unpublished', { q: 'x' })])
    expect(names(parsed[0]!)).not.toContain('notes.unpublished')
    expect(parsed[1]?.error).toEqual(UNKNOWN_TOOL_ERROR)
    expect(session.calls).toEqual([])
    await session.close()
  })
})

describe('mcpMessageControls', () => {
  it('guards a server: its connect rejects with ERR_TOOL_UNPUBLISHED naming the tool', async () => {
    const controls = mcpMessageControls({
      validation: inputValidation(fixtureRegistry(), { unpublishedTools: 'error' }),
    })
    const server = controls.guard(createTestServer([]))
    const [, serverSide] = InMemoryTransport.createLinkedPair()
    expect(await rejection(server.connect(serverSide))).toMatchObject({
      code: 'ERR_TOOL_UNPUBLISHED',
      tools: ['notes.unpublished'],
    })
    expect(await rejection(controls.connect(createTestServer([]), serverSide))).toMatchObject({
      code: 'ERR_TOOL_UNPUBLISHED',
      tools: ['notes.unpublished'],
    })
  })

  it('control: without a validation control, the same server connects', async () => {
    const controls = mcpMessageControls({})
    const session = await inMemorySessionWith((server, side) => controls.connect(server, side))
    const { parsed } = await session.request(toolCall(4, 'notes.unpublished', { q: 'x' }))
    expect(parsed[0]?.result).toBeDefined()
    expect(session.calls.map((c) => c.tool)).toEqual(['notes.unpublished'])
    await session.close()
  })
})
