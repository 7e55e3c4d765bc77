// The 2026-07-28 steps of @tollgate/mcp-transport in their seats on the reference server, live:
// from the head alone (a name off the route's surface, a declared length over the tool's cap),
// at the first body byte (a batch), and after the parse (a mirrored header that disagrees with
// the body). A raw socket client writes the bytes; the tool_invoked sentinel shows no handler ran.
import { chunk, head, RawClient, rawPost } from '@tollgate/test-kit/http-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MODERN_META, MODERN_VERSION, send2026 } from './helpers/modern-client.js'
import { ALICE, type LiveServer, startServer } from './helpers/server.js'

let server: LiveServer

beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server.stop()
})

const invoked = () => server.audit.named('tool_invoked').length
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${ALICE}`,
  'mcp-protocol-version': MODERN_VERSION,
  'mcp-method': 'tools/call',
}

/** A tools/call of `name` followed by `pad` bytes of whitespace: a body that takes long to end. */
function padded(name: string, pad: number): Buffer {
  const call = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: {
      name,
      arguments: { projectId: 'atlas', documentId: 'atlas-handbook' },
      _meta: MODERN_META,
    },
  })
  return Buffer.concat([Buffer.from(call), Buffer.alloc(pad, 0x20)])
}

describe('mcpRouteHead on the reference server', () => {
  it('refuses an Mcp-Name off the route surface from the head with the unknown-tool answer, the body never sent', async () => {
    const before = invoked()
    const refusal = async (name: string) => {
      const client = new RawClient(server.port)
      const lines = [`POST /mcp/public HTTP/1.1`, `host: 127.0.0.1:${server.port}`]
      for (const [k, v] of Object.entries({ ...HEADERS, 'mcp-name': name }))
        lines.push(`${k}: ${v}`)
      lines.push('transfer-encoding: chunked')
      await client.write(head(lines))
      // The head and the start of a body announced as chunked, then nothing more: an answer
      // can only come from the head (a server that waited for the body would never answer).
      await client.write(chunk(padded(name, 0).subarray(0, 40)))
      const answer = await client.response()
      client.destroy()
      return { answer }
    }
    const elsewhere = await refusal('knowledge.get')
    const nowhere = await refusal('ghost.get')
    expect(elsewhere.answer.status).toBe(400)
    expect(JSON.parse(elsewhere.answer.body).error).toEqual({
      code: -32602,
      message: 'Unknown tool',
    })
    expect(elsewhere.answer.headers.connection).toBe('close')
    expect(nowhere.answer.body).toBe(elsewhere.answer.body)
    expect(invoked()).toBe(before)
  })

  it('refuses a resources/read of a kind the route does not mount, and any prompts/get, from the head; a mounted document is served', async () => {
    const DOC = 'tollgate://knowledge/atlas/documents/atlas-limits'
    const reads = () => server.audit.named('resource_read').length
    const before = reads()
    /** The head and 40 bytes of a chunked body, then nothing: only the head can be answered. */
    const fromHead = async (path: string, method: string, name: string, params: object) => {
      const client = new RawClient(server.port)
      const lines = [`POST ${path} HTTP/1.1`, `host: 127.0.0.1:${server.port}`]
      const headers = { ...HEADERS, 'mcp-method': method, 'mcp-name': name }
      for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`)
      lines.push('transfer-encoding: chunked')
      await client.write(head(lines))
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method,
        params: { ...params, _meta: MODERN_META },
      })
      await client.write(chunk(Buffer.from(body).subarray(0, 40)))
      const answer = await client.response()
      client.destroy()
      return answer
    }
    const document = await fromHead('/mcp/public', 'resources/read', DOC, { uri: DOC })
    expect(document.status).toBe(400)
    expect(JSON.parse(document.body).error).toEqual({ code: -32602, message: 'Resource not found' })
    expect(document.body).not.toContain('atlas')
    const prompt = await fromHead('/mcp', 'prompts/get', 'summarize', { name: 'summarize' })
    expect(prompt.status).toBe(400)
    expect(JSON.parse(prompt.body).error).toEqual({ code: -32602, message: 'Prompt not found' })
    expect(reads()).toBe(before)
    // The positive control: the route that mounts documents serves the same read.
    const served = await send2026(
      server.url('/mcp'),
      { jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri: DOC, _meta: MODERN_META } },
      { 'mcp-method': 'resources/read', 'mcp-name': DOC },
      { token: ALICE },
    )
    expect(served.status).toBe(200)
    expect(JSON.parse(served.text).result.contents[0].uri).toBe(DOC)
    await server.audit.waitFor((e) => e.event === 'resource_read' && e.resource === 'documents')
  })

  it("refuses a declared length over the tool's byte cap (project.list: 4,096) with 413 before the body", async () => {
    const before = invoked()
    const res = await rawPost(
      server.port,
      { ...HEADERS, 'mcp-name': 'project.list', 'content-length': String(4097) },
      padded('project.list', 4097 - padded('project.list', 0).length),
      { path: '/mcp' },
    )
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body).error.data).toEqual({ code: 'ERR_BODY_TOO_LARGE', limit: 4096 })
    expect(invoked()).toBe(before)
    const atCap = await rawPost(
      server.port,
      { ...HEADERS, 'mcp-name': 'project.list', 'content-length': String(4096) },
      padded('project.list', 4096 - padded('project.list', 0).length),
      { path: '/mcp' },
    )
    expect(atCap.status).toBe(200)
  })

  it('refuses a JSON array at its first byte with 400 -32600', async () => {
    const res = await send2026(
      server.url('/mcp'),
      `[${padded('project.list', 0)}]`,
      { 'mcp-method': 'tools/call', 'mcp-name': 'project.list' },
      { token: ALICE },
    )
    expect(res.status).toBe(400)
    expect(JSON.parse(res.text).error.code).toBe(-32600)
  })

  it('refuses an Mcp-Name that disagrees with the tool in the body with 400 -32020, and no handler runs', async () => {
    const before = invoked()
    const res = await send2026(
      server.url('/mcp'),
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'admin', arguments: { action: 'stats' }, _meta: MODERN_META },
      },
      { 'mcp-method': 'tools/call', 'mcp-name': 'project.list' },
      { token: ALICE },
    )
    expect(res.status).toBe(400)
    const error = JSON.parse(res.text).error
    expect(error.code).toBe(-32020)
    expect(error.data).toMatchObject({ header: 'Mcp-Name', kind: 'mismatch' })
    expect(invoked()).toBe(before)
  })
})
