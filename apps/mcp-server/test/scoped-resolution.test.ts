// Route-scoped resolution of caller-composed names (group and class dispatchers), live: the real
// server, a raw JSON-RPC client, nothing private set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RawSession, resultJson, toolResult } from './helpers/raw-client.js'
import { ALICE, type LiveServer, startServer } from './helpers/server.js'

let server: LiveServer
let lifted: LiveServer

beforeAll(async () => {
  ;[server, lifted] = await Promise.all([
    startServer(),
    startServer(['--unsafe-disable-input-validation']),
  ])
})
afterAll(async () => {
  await Promise.all([server.stop(), lifted.stop()])
})

const invoked = (s: LiveServer) => s.audit.named('tool_invoked').length
const storeWrites = async (session: RawSession) =>
  (
    resultJson(await session.call('admin', { action: 'stats' }, 99)) as {
      continuationStoreWrites: number
    }
  ).continuationStoreWrites

describe('knowledge (group dispatcher)', () => {
  it('serves its own resource on a route that mounts it', async () => {
    const team = await RawSession.open(server.url('/mcp/team'), ALICE)
    const res = await team.call('knowledge', {
      projectId: 'atlas',
      resource: 'documents',
      action: 'list',
    })
    expect(res.status).toBe(200)
    expect(toolResult(res).isError).toBeUndefined()
    const body = resultJson(res) as { documents: { id: string }[] }
    expect(body.documents.map((d) => d.id)).toContain('atlas-handbook')
  })

  it('refuses a resource the route does not mount with the bytes of a resource that exists nowhere', async () => {
    const pub = await RawSession.open(server.url('/mcp/public'), ALICE)
    const before = server.audit.named('continuation_minted').length
    const mountedElsewhere = await pub.call('knowledge', {
      projectId: 'atlas',
      resource: 'documents',
      action: 'get',
      id: 'atlas-handbook',
    })
    const nowhere = await pub.call('knowledge', {
      projectId: 'atlas',
      resource: 'ghosts',
      action: 'get',
      id: 'atlas-handbook',
    })
    expect(toolResult(mountedElsewhere).isError).toBe(true)
    expect(mountedElsewhere.status).toBe(nowhere.status)
    expect(mountedElsewhere.text).toBe(nowhere.text)
    expect(JSON.parse(toolResult(nowhere).content[0]!.text).error.code).toBe('ERR_TOOL_NOT_FOUND')
    // The same documents read is served on the team route, so the refusal is the route's doing.
    const team = await RawSession.open(server.url('/mcp/team'), ALICE)
    const served = await team.call('knowledge', {
      projectId: 'atlas',
      resource: 'documents',
      action: 'list',
    })
    expect(toolResult(served).isError).toBeUndefined()
    expect(server.audit.named('continuation_minted').length).toBe(before)
  })
})

describe('admin (class dispatcher)', () => {
  it('refuses an injected top-level resource byte-identically for a real and a nonexistent resource, and mints nothing', async () => {
    const full = await RawSession.open(server.url('/mcp'), ALICE)
    const writesBefore = await storeWrites(full)
    const runsBefore = invoked(server)
    const injected = await full.call('admin', { action: 'stats', resource: 'documents' })
    const control = await full.call('admin', { action: 'stats', resource: 'no-such-resource' })
    expect(injected.text).toBe(control.text)
    expect(injected.text).toBe(
      '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Invalid arguments for tool admin: /resource fails additionalProperties false"}],"isError":true}}',
    )
    expect(invoked(server)).toBe(runsBefore)
    expect(await storeWrites(full)).toBe(writesBefore)
  })

  it('answers an injected top-level resource exactly as the baseline when validation is lifted, and mints nothing', async () => {
    const full = await RawSession.open(lifted.url('/mcp'), ALICE)
    const writesBefore = await storeWrites(full)
    const baseline = await full.call('admin', { action: 'stats' })
    const injected = await full.call('admin', { action: 'stats', resource: 'documents' })
    const control = await full.call('admin', { action: 'stats', resource: 'no-such-resource' })
    expect(injected.text).toBe(baseline.text)
    expect(control.text).toBe(baseline.text)
    expect(toolResult(baseline).isError).toBeUndefined()
    expect(await storeWrites(full)).toBe(writesBefore)
    expect(lifted.audit.named('continuation_minted')).toHaveLength(0)
  })
})
