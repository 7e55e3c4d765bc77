import { readFileSync } from 'node:fs'
import type { RefusalEvent } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import {
  checkToolCall,
  INPUT_VALIDATION_OPTIONS,
  resolveInputValidationOptions,
  withInputValidation,
} from '../src/index.js'
import { fixtureRegistry, inMemorySession, type Json, toolCall } from './helpers/raw-clients.js'

describe('resolveInputValidationOptions', () => {
  it('fills the defaults and freezes the result', () => {
    const resolved = resolveInputValidationOptions()
    expect(resolved).toEqual({ ...INPUT_VALIDATION_OPTIONS.defaults })
    expect(Object.isFrozen(resolved)).toBe(true)
    expect(resolveInputValidationOptions(resolved)).toBe(resolved)
    expect(INPUT_VALIDATION_OPTIONS.defaults).toEqual({
      maxDepth: 32,
      maxNodes: 10_000,
      maxBytes: 4_194_304,
      rewriteToolsList: true,
      surface: undefined,
      onRefusal: undefined,
      unpublishedTools: 'warn',
    })
  })

  it.each([
    [{ maxDepth: -1 }],
    [{ maxNodes: 1.5 }],
    [{ maxBytes: Number.NaN }],
    [{ maxDepth: 65 }],
    [{ maxNodes: 100_001 }],
    [{ maxBytes: 64 * 1024 * 1024 + 1 }],
    [{ rewriteToolsList: 'yes' }],
    [{ maxDeph: 3 }],
  ])('throws a TypeError at construction on %j', (options) => {
    expect(() => resolveInputValidationOptions(options as never)).toThrow(TypeError)
  })

  it('admits each limit at its ceiling', () => {
    expect(
      resolveInputValidationOptions({
        maxDepth: 64,
        maxNodes: 100_000,
        maxBytes: 64 * 1024 * 1024,
      }),
    ).toMatchObject({
      maxDepth: 64,
      maxNodes: 100_000,
      maxBytes: 64 * 1024 * 1024,
    })
  })

  it('matches the options table in the README', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    expect(readme).toContain(INPUT_VALIDATION_OPTIONS.markdown())
  })
})

describe('withInputValidation', () => {
  it('throws a TypeError at construction on a bad registry or bad options', () => {
    const transport = { send: async () => {}, start: async () => {}, close: async () => {} }
    expect(() => withInputValidation(transport, {} as never)).toThrow(TypeError)
    expect(() => withInputValidation(transport, fixtureRegistry(), { maxDepth: 0.5 })).toThrow(
      TypeError,
    )
  })
})

// maxDepth 0 is admitted, as json-budget's shared vocabulary has it ("integer ≥ 0"): no
// `arguments` fits (missing ones count as `{}`, depth 1), so the route refuses every
// tools/call of a published tool: a deny-all route, decided at construction.
describe('maxDepth 0, a deny-all route', () => {
  it('admits maxDepth 0 at construction and refuses every tools/call with ERR_JSON_TOO_DEEP and limit 0', async () => {
    const none = resolveInputValidationOptions({ maxDepth: 0 })
    expect(none.maxDepth).toBe(0)
    for (const params of [
      { name: 'system.ping' },
      { name: 'system.ping', arguments: {} },
      { name: 'notes.search', arguments: { projectId: 'a', query: 'x' } },
    ]) {
      expect(checkToolCall(fixtureRegistry(), params, none)).toMatchObject({
        ok: false,
        error: { code: 'ERR_TOOL_ARGUMENTS', refusal: { code: 'ERR_JSON_TOO_DEEP', limit: 0 } },
      })
    }
    const events: RefusalEvent[] = []
    const session = await inMemorySession(true, { maxDepth: 0, onRefusal: (e) => events.push(e) })
    try {
      const { parsed } = await session.request(toolCall(1, 'system.ping', {}))
      const result = (parsed[0] as Json).result as { isError?: boolean; content: Json[] }
      expect(result.isError).toBe(true)
      expect(result.content[0]?.text).toMatch(/ exceeds maxDepth 0 \(ERR_JSON_TOO_DEEP\)$/)
      expect(events).toMatchObject([
        { code: 'ERR_JSON_TOO_DEEP', control: 'mcp-tool-bounds', limit: 0 },
      ])
      expect(session.calls).toEqual([])
    } finally {
      await session.close()
    }
    // The control: the same call at the default depth is served.
    const served = await inMemorySession(true)
    try {
      const { parsed } = await served.request(toolCall(1, 'system.ping', {}))
      expect(((parsed[0] as Json).result as Json).isError).toBeUndefined()
      expect(served.calls).toEqual([{ tool: 'system.ping', args: {} }])
    } finally {
      await served.close()
    }
  })

  it.each([[-1], [0.5], [Number.NaN]])(
    'throws a TypeError at construction on maxDepth %s',
    (maxDepth) => {
      expect(() => resolveInputValidationOptions({ maxDepth })).toThrow(TypeError)
      const transport = { send: async () => {}, start: async () => {}, close: async () => {} }
      expect(() => withInputValidation(transport, fixtureRegistry(), { maxDepth })).toThrow(
        TypeError,
      )
    },
  )
})
