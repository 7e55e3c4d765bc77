// What a refusal echoes, exactly as SECURITY.md ("What a refusal echoes") and the README state:
// a caller-chosen key name appears in the refusal's JSON Pointer (the `isError` text; the
// onRefusal event names no key at all) only when it is at most 64 printable ASCII characters, escaped
// as a JSON Pointer segment (`~` as `~0`, `/` as `~1`); any other key appears as `<N chars>`;
// a value never appears. Through the SDK's in-memory pair with raw JSON-RPC messages.

import type { RefusalEvent } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { withInputValidation } from '../src/index.js'
import { fixtureRegistry, inMemorySession, stubTransport, toolCall } from './helpers/raw-clients.js'

const VALID = { projectId: 'acme', query: 'roadmap' }
const VALUE = 'VALUE-MARKER-41d2'

/** The refusal text and the events, as JSON, for one unknown key `key`. */
async function refusalFor(key: string): Promise<{ text: string; reported: string }> {
  const events: RefusalEvent[] = []
  const session = await inMemorySession(true, {
    onRefusal: (e) => events.push(e),
  })
  try {
    const { parsed } = await session.request(
      toolCall(1, 'notes.search', { ...VALID, [key]: VALUE }),
    )
    const result = parsed[0]?.result as { content: [{ text: string }]; isError: boolean }
    expect(result.isError).toBe(true)
    expect(session.calls).toEqual([])
    expect(events).toHaveLength(1)
    return { text: result.content[0].text, reported: JSON.stringify(events) }
  } finally {
    await session.close()
  }
}

describe('withInputValidation, what a refusal echoes', () => {
  it('names a key of at most 64 printable ASCII characters, escaped as a JSON Pointer segment', async () => {
    const key = `a/b~c${'k'.repeat(59)}`
    expect(key).toHaveLength(64)
    const escaped = `/a~1b~0c${'k'.repeat(59)}`
    const { text, reported } = await refusalFor(key)
    expect(reported).not.toContain(key)
    expect(text).toContain(escaped)
    expect(text).not.toContain(VALUE)
  })

  it.each([
    ['65 printable characters', 'k'.repeat(65), '<65 chars>'],
    ['a control character', 'a\u0001b', '<3 chars>'],
    ['a non-ASCII character', 'clé', '<3 chars>'],
    ['a line break', 'a\nb', '<3 chars>'],
  ])('writes a key holding %s as its length only', async (_what, key, shown) => {
    const { text, reported } = await refusalFor(key)
    expect(reported).not.toContain(shown)
    expect(text).toContain(`/${shown}`)
    expect(text).not.toContain(key)
    expect(text).not.toContain(VALUE)
  })

  it("names no reused id's method in the event", async () => {
    const { stub } = stubTransport()
    const events: RefusalEvent[] = []
    withInputValidation(stub, fixtureRegistry(), {
      onRefusal: (e) => events.push(e),
    })
    const first = { jsonrpc: '2.0', id: 3, method: 'tools/list' }
    stub.onmessage?.(first as never)
    stub.onmessage?.({ ...first, method: 'm'.repeat(10_000) } as never)
    stub.onmessage?.({ ...first, method: 'x/y' } as never)
    expect(events.map((e) => e.code)).toEqual(['ERR_MCP_REUSED_ID', 'ERR_MCP_REUSED_ID'])
    expect(JSON.stringify(events)).not.toContain('mmm')
    expect(JSON.stringify(events)).not.toContain('x/y')
  })
})
