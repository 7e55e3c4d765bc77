// What `knowledge.status` describes (only what the caller can read on its route) and what a
// `snapshotId` gets (a tool error saying the store cannot serve it, never live data), through a
// raw JSON-RPC client against the real server process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RawResponse, RawSession, resultJson, toolResult } from './helpers/raw-client.js'
import { ALICE, BOB, type LiveServer, startServer } from './helpers/server.js'

const served = (res: RawResponse) => toolResult(res).isError === undefined
const errorCode = (res: RawResponse) =>
  (resultJson(res) as { error?: { code?: string } }).error?.code

/** The UTF-8 bytes of every note body of `projectId`, read through the notes resource. */
async function noteBytes(s: RawSession, projectId: string): Promise<number> {
  const list = resultJson(
    await s.call('knowledge', { projectId, resource: 'notes', action: 'list' }),
  ) as { notes: { id: string }[] }
  let bytes = 0
  for (const { id } of list.notes) {
    const note = resultJson(
      await s.call('knowledge', { projectId, resource: 'notes', action: 'get', id }),
    ) as { body: string }
    bytes += Buffer.byteLength(note.body)
  }
  return bytes
}

describe('knowledge.status', () => {
  let server: LiveServer

  beforeAll(async () => {
    server = await startServer()
    const admin = await RawSession.open(server.url('/mcp'), ALICE)
    const revoked = await admin.call('admin', {
      action: 'revoke',
      params: { credentialId: 'bob', capability: 'documents' },
    })
    expect(resultJson(revoked)).toMatchObject({ changed: true })
  })
  afterAll(() => server?.stop())

  it('counts documents and their bytes for a caller who can read documents on the route', async () => {
    const alice = await RawSession.open(server.url('/mcp/team'), ALICE)
    const status = resultJson(await alice.call('knowledge.status', { projectId: 'atlas' })) as {
      documents?: number
      notes?: number
      bytes: number
    }
    expect(status.documents).toBe(2)
    expect(status.notes).toBe(2)
    expect(status.bytes).toBeGreaterThan(64 * 1024)
  })

  it('tells a caller without the documents capability neither the document count nor their bytes', async () => {
    const bob = await RawSession.open(server.url('/mcp/team'), BOB)
    const status = resultJson(await bob.call('knowledge.status', { projectId: 'atlas' }))
    expect(status).toEqual({ projectId: 'atlas', notes: 2, bytes: await noteBytes(bob, 'atlas') })
  })

  it('describes no documents on a route that carves them out, whatever the credential holds', async () => {
    const alice = await RawSession.open(server.url('/mcp/public'), ALICE)
    const status = resultJson(await alice.call('knowledge.status', { projectId: 'atlas' }))
    expect(status).toEqual({
      projectId: 'atlas',
      notes: 2,
      bytes: await noteBytes(alice, 'atlas'),
    })
  })
})

describe('snapshotId', () => {
  let server: LiveServer
  let lifted: LiveServer

  beforeAll(async () => {
    ;[server, lifted] = await Promise.all([
      startServer(),
      startServer(['--unsafe-disable-input-validation']),
    ])
  })
  afterAll(() => Promise.all([server?.stop(), lifted?.stop()]))

  const calls: [string, Record<string, unknown>][] = [
    ['knowledge.status', { projectId: 'atlas' }],
    ['knowledge.get', { projectId: 'atlas', documentId: 'atlas-limits' }],
    ['knowledge.search', { projectId: 'atlas', query: 'admission' }],
    ['knowledge', { projectId: 'atlas', resource: 'notes', action: 'list' }],
  ]

  it.each(calls)(
    'refuses %s naming a snapshot with ERR_SNAPSHOT_UNAVAILABLE, and serves nothing',
    async (name, args) => {
      const alice = await RawSession.open(server.url('/mcp'), ALICE)
      // The same call without a snapshot is served: the refusal is the snapshot's.
      expect(served(await alice.call(name, args))).toBe(true)
      const before = server.audit.named('tool_invoked').length
      const res = await alice.call(name, { ...args, snapshotId: 'snap-2026q3' })
      expect(served(res)).toBe(false)
      expect(errorCode(res)).toBe('ERR_SNAPSHOT_UNAVAILABLE')
      expect(res.text).not.toContain('Atlas')
      expect(res.text).not.toContain('snap-2026q3')
      expect(server.audit.named('call_refused').at(-1)).toMatchObject({
        reason: 'snapshot_unavailable',
      })
      expect(server.audit.named('tool_invoked')).toHaveLength(before + 1)
    },
  )

  it('refuses a snapshot next to a continuation token, before the token is redeemed', async () => {
    const alice = await RawSession.open(server.url('/mcp'), ALICE)
    const heavy = resultJson(
      await alice.call('knowledge.get', { projectId: 'atlas', documentId: 'atlas-handbook' }),
    ) as { continuation: { token: string } }
    const res = await alice.call('knowledge', {
      projectId: 'atlas',
      resource: 'documents',
      action: 'get',
      continuation: heavy.continuation.token,
      snapshotId: 'snap-1',
    })
    expect(errorCode(res)).toBe('ERR_SNAPSHOT_UNAVAILABLE')
    expect(server.audit.named('continuation_served')).toHaveLength(0)
  })

  it('refuses it in the handler, not only in the validator: with validation lifted it is still refused', async () => {
    const alice = await RawSession.open(lifted.url('/mcp'), ALICE)
    const res = await alice.call('knowledge.status', { projectId: 'atlas', snapshotId: 'snap-1' })
    expect(errorCode(res)).toBe('ERR_SNAPSHOT_UNAVAILABLE')
  })

  it('refuses a malformed snapshotId at input validation, before any handler runs', async () => {
    const alice = await RawSession.open(server.url('/mcp'), ALICE)
    const before = server.audit.named('tool_invoked').length
    const res = await alice.call('knowledge.status', { projectId: 'atlas', snapshotId: 'SNAP' })
    expect(served(res)).toBe(false)
    expect(res.text).not.toContain('SNAP')
    expect(server.audit.named('tool_invoked')).toHaveLength(before)
  })
})
