// Documents and notes as MCP resources, live: the real bundle, a raw JSON-RPC client. The route
// surfaces, the capability checks and the result budget hold for resources/read as for tools;
// the sentinel is the `resource_read` audit line (the store was read for the caller).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RawSession } from './helpers/raw-client.js'
import { ALICE, BOB, type LiveServer, startServer } from './helpers/server.js'

let server: LiveServer
let tight: LiveServer

beforeAll(async () => {
  ;[server, tight] = await Promise.all([
    startServer(),
    // Room for the small documents, not for the ~97 KiB handbook.
    startServer(['--max-result-bytes', '65536']),
  ])
})
afterAll(async () => {
  await Promise.all([server.stop(), tight.stop()])
})

const DOC = 'tollgate://knowledge/atlas/documents/atlas-limits'
const HANDBOOK = 'tollgate://knowledge/atlas/documents/atlas-handbook'
const NOTE = 'tollgate://knowledge/atlas/notes/atlas-note-1'
const read = (s: RawSession, uri: string) =>
  s.post({ jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri } })
const listUris = async (s: RawSession) =>
  (
    JSON.parse((await s.post({ jsonrpc: '2.0', id: 4, method: 'resources/list' })).text).result
      .resources as { uri: string }[]
  ).map((r) => r.uri)
const templates = async (s: RawSession) =>
  (
    JSON.parse((await s.post({ jsonrpc: '2.0', id: 5, method: 'resources/templates/list' })).text)
      .result.resourceTemplates as { uriTemplate: string }[]
  ).map((t) => t.uriTemplate)
const reads = (s: LiveServer) => s.audit.named('resource_read').length

describe('resources', () => {
  it('lists, templates and serves documents and notes on the full route', async () => {
    const full = await RawSession.open(server.url('/mcp'), ALICE)
    expect(await listUris(full)).toEqual(expect.arrayContaining([DOC, HANDBOOK, NOTE]))
    expect(await templates(full)).toEqual([
      'tollgate://knowledge/{projectId}/documents/{id}',
      'tollgate://knowledge/{projectId}/notes/{id}',
    ])
    const res = JSON.parse((await read(full, DOC)).text)
    expect(res.result.contents).toEqual([
      { uri: DOC, mimeType: 'text/markdown', text: expect.stringContaining('4 MiB') },
    ])
    await server.audit.waitFor((e) => e.event === 'resource_read' && e.resource === 'documents')
  })

  it('refuses a document on a route that does not mount it with the bytes of a URI that exists nowhere, and the store is not read', async () => {
    const pub = await RawSession.open(server.url('/mcp/public'), ALICE)
    expect((await listUris(pub)).some((u) => u.includes('/documents/'))).toBe(false)
    expect(await templates(pub)).toEqual(['tollgate://knowledge/{projectId}/notes/{id}'])
    const before = reads(server)
    const unmounted = await read(pub, DOC)
    const nowhere = await read(pub, 'tollgate://knowledge/atlas/documents/no-such-document')
    const foreign = await read(pub, 'test://static-text')
    const notAUrl = await read(pub, 'not a url at all')
    expect(JSON.parse(unmounted.text).error).toEqual({
      code: -32602,
      message: 'Resource not found',
    })
    expect(unmounted.text).toBe(nowhere.text)
    expect(foreign.text).toBe(nowhere.text)
    expect(notAUrl.text).toBe(nowhere.text)
    expect(reads(server)).toBe(before)
    // The control: the team route mounts the documents and serves the same URI.
    const team = await RawSession.open(server.url('/mcp/team'), ALICE)
    expect(JSON.parse((await read(team, DOC)).text).result.contents[0].uri).toBe(DOC)
  })

  it('refuses a document after the documents capability is revoked, byte-identically to a nonexistent one, and serves it before', async () => {
    const bob = await RawSession.open(server.url('/mcp'), BOB)
    expect(JSON.parse((await read(bob, DOC)).text).result).toBeDefined()
    const alice = await RawSession.open(server.url('/mcp'), ALICE)
    const change = (action: string) =>
      alice.call('admin', { action, params: { credentialId: 'bob', capability: 'documents' } })
    await change('revoke')
    try {
      const before = reads(server)
      const revoked = await read(bob, DOC)
      const nowhere = await read(bob, 'tollgate://knowledge/atlas/documents/no-such-document')
      expect(revoked.text).toBe(nowhere.text)
      expect(reads(server)).toBe(before)
      expect((await listUris(bob)).some((u) => u.includes('/documents/'))).toBe(false)
      expect(await listUris(bob)).toContain(NOTE)
    } finally {
      await change('grant')
    }
  })

  it('refuses a resource read over the result budget with ERR_JSON_TOO_LARGE, never truncated, and serves one under it', async () => {
    const full = await RawSession.open(tight.url('/mcp'), ALICE)
    const over = await read(full, HANDBOOK)
    const body = JSON.parse(over.text)
    expect(body.result).toBeUndefined()
    expect(body.error.code).toBe(-32000)
    expect(body.error.data).toEqual({ code: 'ERR_JSON_TOO_LARGE', limit: 65536 - 1024 })
    expect(over.text.length).toBeLessThan(512)
    expect(JSON.parse((await read(full, DOC)).text).result.contents).toHaveLength(1)
  })

  it('serves the same resource whole under the default 64 MiB budget', async () => {
    const full = await RawSession.open(server.url('/mcp'), ALICE)
    const text: string = JSON.parse((await read(full, HANDBOOK)).text).result.contents[0].text
    expect(Buffer.byteLength(text)).toBeGreaterThan(96 * 1024)
  })

  it('answers logging/setLevel with an empty result', async () => {
    const pub = await RawSession.open(server.url('/mcp/public'), ALICE)
    const res = await pub.post({
      jsonrpc: '2.0',
      id: 6,
      method: 'logging/setLevel',
      params: { level: 'warning' },
    })
    expect(JSON.parse(res.text)).toEqual({ jsonrpc: '2.0', id: 6, result: {} })
  })

  it('lists no prompts and answers prompts/get with one fixed refusal that never echoes the name', async () => {
    const pub = await RawSession.open(server.url('/mcp/public'), ALICE)
    const listed = await pub.post({ jsonrpc: '2.0', id: 7, method: 'prompts/list' })
    expect(JSON.parse(listed.text)).toEqual({ jsonrpc: '2.0', id: 7, result: { prompts: [] } })
    const get = (name: string) =>
      pub.post({ jsonrpc: '2.0', id: 8, method: 'prompts/get', params: { name } })
    const a = await get('summarize')
    const b = await get('MARKER-8b1c-not-a-prompt')
    expect(a.text).toBe(b.text)
    expect(a.text).not.toContain('MARKER')
    expect(JSON.parse(a.text).error).toMatchObject({ code: -32602 })
  })
})
