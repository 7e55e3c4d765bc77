// The route surface holds at input validation (a name outside the route's set is not looked up
// at all, and the refusal is byte-identical, so no caller learns what another route mounts). The
// real server (dist/main.js) over Streamable HTTP with a raw JSON-RPC client; the control is the
// same per-session server (the app's own buildMcpServer for /mcp/public) behind a real
// http.Server with the validation decorator installed WITHOUT the route's surface, as it was
// before: there a tool mounted on another route answers differently from a tool that exists
// nowhere.
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node'
import { createContinuations, sealedHandles } from '@tollgate/continuation'
import { loadSchemaRegistry, withInputValidation } from '@tollgate/mcp-validation'
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildMcpServer, publishTools } from '../src/build-server.js'
import { validateConfig } from '../src/config.js'
import { messageControls } from '../src/controls.js'
import { CredentialRegistry } from '../src/credentials.js'
import { KnowledgeStore } from '../src/store/knowledge-store.js'
import { SEED_DATA } from '../src/store/seed.js'
import { ROUTES } from '../src/surfaces.js'
import type { ServerContext } from '../src/tools/context.js'
import { TOOL_NAMES } from '../src/tools/table.js'
import { type RawResponse, RawSession, toolResult } from './helpers/raw-client.js'
import { ALICE, type LiveServer, startServer, writeConfig } from './helpers/server.js'

const SCHEMAS = fileURLToPath(new URL('../../../schemas/mcp/', import.meta.url))
const CAROL = 'carol-token-0123456789abcdef'
const UNKNOWN = '{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool"}}'
const GET = { projectId: 'atlas', documentId: 'atlas-handbook' }
const publicRoute = ROUTES.find((r) => r.name === 'public')!

/** The probes: mounted elsewhere, nowhere, and a mounted-elsewhere dispatcher, each with and without an extra key. */
const PROBES: [string, Record<string, unknown>][] = [
  ['knowledge.get', GET],
  ['ghost.get', GET],
  ['knowledge.get', { ...GET, bogus: 1 }],
  ['ghost.get', { ...GET, bogus: 1 }],
  ['admin', { action: 'stats' }],
  ['admin', { action: 'stats', bogus: 1 }],
  ['ghost', { action: 'stats', bogus: 1 }],
]

let server: LiveServer
beforeAll(async () => {
  const config = writeConfig({
    credentials: [
      {
        id: 'alice',
        token: ALICE,
        capabilities: ['read', 'documents', 'notes', 'export', 'admin'],
      },
      { id: 'carol', token: CAROL, capabilities: ['read'] },
    ],
  })
  server = await startServer(['--config', config], false)
})
afterAll(async () => {
  await server?.stop()
})

const listNames = async (s: RawSession): Promise<string[]> => {
  const res = await s.post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })
  return (JSON.parse(res.text).result.tools as { name: string }[]).map((t) => t.name)
}

describe('withInputValidation with the route surface, on the reference server', () => {
  // Generous: the repeats' count is written when the 10 s refusal window ends.
  it('answers a tool mounted elsewhere and a tool that exists nowhere on /mcp/public byte-identically, with and without extra keys', {
    timeout: 120_000,
  }, async () => {
    const s = await RawSession.open(server.url('/mcp/public'), ALICE)
    const mark = server.audit.raw.length
    const markEvents = server.audit.events.length
    const invoked = server.audit.named('tool_invoked').length
    const answers: RawResponse[] = []
    for (const [name, args] of PROBES) answers.push(await s.call(name, args))
    for (const a of answers) {
      expect(a.status).toBe(200)
      expect(a.text).toBe(UNKNOWN)
    }
    // No handler ran, and the audit lines carry no caller bytes.
    expect(server.audit.named('tool_invoked').length).toBe(invoked)
    // Repeats of one refusal kind are aggregated: a line counts 1, or the repeats it closes.
    await server.audit.waitFor(
      () =>
        server.audit.events
          .slice(markEvents)
          .filter((x) => x.control === 'mcp-tool-surface')
          .reduce((n, x) => n + (typeof x.repeated === 'number' ? x.repeated : 1), 0) >=
        PROBES.length,
    )
    const lines = server.audit.raw.slice(mark).join('\n')
    expect(lines).not.toContain('ghost')
    expect(lines).not.toContain('bogus')
    expect(lines).not.toContain('atlas')
  })

  it('audits each input-validation refusal with its code and step', async () => {
    const s = await RawSession.open(server.url('/mcp/public'), ALICE)
    const before = server.audit.events.length
    await s.call('knowledge.search', { projectId: 'atlas', query: 'x', sort: 'desc' })
    await s.call('ghost.get', {})
    const refused = await Promise.all([
      server.audit.waitFor(
        (e) => server.audit.events.indexOf(e) >= before && e.control === 'mcp-tool-schema',
      ),
      server.audit.waitFor(
        (e) => server.audit.events.indexOf(e) >= before && e.control === 'mcp-tool-surface',
      ),
    ])
    expect(refused[0]).toMatchObject({
      event: 'call_refused',
      layer: 'input_validation',
      code: 'ERR_TOOL_ARGUMENTS',
      route: 'public',
      credential: 'alice',
    })
    expect(refused[1]).toMatchObject({
      event: 'call_refused',
      layer: 'input_validation',
      code: 'ERR_TOOL_UNKNOWN',
      route: 'public',
    })
    // The event names no tool a caller chose, and no key it sent.
    expect(JSON.stringify(refused)).not.toContain('ghost')
    expect(JSON.stringify(refused)).not.toContain('sort')
  })

  it('lists on /mcp/public exactly the registered tools the route mounts', async () => {
    const s = await RawSession.open(server.url('/mcp/public'), ALICE)
    const mounted = TOOL_NAMES.filter((n) => publicRoute.view.names.includes(n))
    expect((await listNames(s)).sort()).toEqual([...mounted].sort())
    expect(await listNames(s)).not.toContain('knowledge.get')
  })

  it('lists the route surface whatever the caller holds: a capability is checked at the call, not at the list', async () => {
    // Decision: tools/list varies with the route (an authorization boundary every caller of it
    // shares), not with the caller's revocable capabilities. A capability-less call to a
    // listed tool is refused by the handler's scoped resolution; the list never hides what the
    // call would reveal.
    const alice = await RawSession.open(server.url('/mcp/team'), ALICE)
    const carol = await RawSession.open(server.url('/mcp/team'), CAROL)
    const names = await listNames(carol)
    expect(names).toContain('knowledge.get')
    expect(names).toEqual(await listNames(alice))
    const invoked = server.audit.named('tool_invoked').length
    const res = await carol.call('knowledge.get', GET)
    expect(toolResult(res).isError).toBe(true)
    await server.audit.waitFor(
      (e) =>
        e.event === 'call_refused' && e.reason === 'tool_not_found' && e.credential === 'carol',
    )
    expect(server.audit.named('tool_invoked').length).toBe(invoked + 1)
  })
})

describe('the control: the decorator without the route surface', () => {
  let http: Running | undefined
  let url: string
  beforeAll(async () => {
    const registry = loadSchemaRegistry(SCHEMAS)
    const context: ServerContext = {
      store: new KnowledgeStore(SEED_DATA),
      credentials: new CredentialRegistry(
        validateConfig({
          credentials: [{ id: 'alice', token: ALICE, capabilities: ['read', 'documents'] }],
        }),
      ),
      continuations: createContinuations({}),
      handles: sealedHandles({ keys: [{ id: 'test', secret: new Uint8Array(32).fill(7) }] }),
      continuationWrites: () => 0,
      audit: () => {},
      registerUnpublishedProbe: false,
      anonymousRoutes: new Set(),
    }
    const sessions = new Map<string, NodeStreamableHTTPServerTransport>()
    http = await listen(async (req, res) => {
      const sid = req.headers['mcp-session-id']
      const known = typeof sid === 'string' ? sessions.get(sid) : undefined
      if (known !== undefined) return known.handleRequest(req, res)
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          sessions.set(id, transport)
        },
      })
      // The app's server with its own validation lifted, behind the decorator without a surface.
      const mcp = buildMcpServer(
        context,
        { route: publicRoute, credentialId: 'alice' },
        publishTools(registry),
        messageControls({ registry: undefined, maxResultBytes: 64 * 1024 * 1024 }),
      )
      await mcp.connect(withInputValidation(transport, registry))
      return transport.handleRequest(req, res)
    })
    url = `${http.url}/mcp/public`
  })
  afterAll(async () => {
    await http?.close()
  })

  it('tells the caller which tools exist on other routes', async () => {
    const s = await RawSession.open(url, ALICE)
    const elsewhere = await s.call('knowledge.get', GET)
    const nowhere = await s.call('ghost.get', GET)
    const schema = await s.call('admin', { action: 'stats', bogus: 1 })
    expect(nowhere.text).toBe(UNKNOWN)
    expect(elsewhere.text).not.toBe(nowhere.text)
    // The schema of a tool this route does not mount, revealed by its verdict.
    expect(toolResult(schema).content[0]?.text).toBe(
      'Invalid arguments for tool admin: /bogus fails additionalProperties false',
    )
  })
})
