// Through a real http.Server on 127.0.0.1 with a raw JSON client that ignores any published
// schema: two routes with the same `read` ceiling and different surfaces, one credential, a
// group dispatcher, a class dispatcher and continuation.fetch. Handlers count their runs
// (sentinel) so a refusal is shown not to have run one. Nothing private is assigned.
import { listen, type Running } from '@tollgate/test-kit/listen'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CONTINUATION_REFUSED,
  type ContinuationAuditEvent,
  createContinuations,
  createToken,
  type RouteView,
  resolveScoped,
  type ScopedRequest,
  TOOL_NOT_FOUND,
} from '../src/index.js'
import { heavyPayload, pub, team } from './fixtures/routes.js'

const routes: Record<string, RouteView> = { '/mcp/team': team, '/mcp/public': pub }
const grants = new Map<string, Set<string>>([['cred-1', new Set(['notes:read', 'export'])]])
const runs = new Map<string, number>()
const events: ContinuationAuditEvent[] = []
const continuations = createContinuations({ audit: { record: (e) => events.push(e) } })

async function handle(path: string, credential: string, body: Record<string, unknown>) {
  const route = routes[path]
  if (route === undefined) return { status: 404, body: { error: 'no route' } }
  const permissions = grants.get(credential) ?? new Set<string>()
  const args = (body.arguments ?? {}) as Record<string, unknown>
  if (body.tool === 'continuation.fetch') {
    const served = await continuations.redeem(args.token, {
      ownerKey: credential,
      route,
      permissions,
    })
    if (!served.ok) return { status: 404, body: CONTINUATION_REFUSED }
    return { status: 200, body: { payload: served.payload.length, target: served.target } }
  }
  let request: ScopedRequest
  if (body.tool === 'knowledge') {
    request = {
      kind: 'group',
      dispatcher: 'knowledge',
      resource: args.resource,
      action: args.action,
    }
  } else if (body.tool === 'admin') {
    request = { kind: 'class', dispatcher: 'admin', action: args.action } // no resource, by shape
  } else {
    request = { kind: 'tool', name: body.tool }
  }
  const r = resolveScoped(route, request, permissions)
  if (!r.ok) return { status: 404, body: TOOL_NOT_FOUND }
  runs.set(r.target.name, (runs.get(r.target.name) ?? 0) + 1) // the handler ran
  const minted = await continuations.mint({
    ownerKey: credential,
    target: r.target,
    payload: heavyPayload(),
  })
  if (!minted.ok) return { status: 503, body: { error: minted.error } }
  return { status: 200, body: { token: minted.token } }
}

let server: Running
let base: string
beforeAll(async () => {
  server = await listen((req, res) => {
    let data = ''
    req.on('data', (c) => (data += c))
    req.on('end', async () => {
      const out = await handle(
        req.url ?? '',
        String(req.headers.authorization ?? ''),
        JSON.parse(data),
      )
      res.writeHead(out.status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(out.body))
    })
  })
  base = server.url
})
afterAll(() => server.close())

async function call(path: string, body: unknown, credential = 'cred-1') {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { authorization: credential, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, text: await res.text() }
}

describe('resolveScoped and redeem behind a real HTTP server', () => {
  it('answers another group’s resource and a nonexistent resource with the same bytes, running no handler', async () => {
    const before = new Map(runs)
    const elsewhere = await call('/mcp/public', {
      tool: 'knowledge',
      arguments: { resource: 'notes', action: 'list' },
    })
    const nowhere = await call('/mcp/public', {
      tool: 'knowledge',
      arguments: { resource: 'zzzzz', action: 'list' },
    })
    const folded = await call('/mcp/public', {
      tool: 'knowledge',
      arguments: { resource: 'Notes', action: 'list' },
    })
    expect(elsewhere).toEqual({ status: 404, text: JSON.stringify(TOOL_NOT_FOUND) })
    expect(nowhere).toEqual(elsewhere)
    expect(folded).toEqual(elsewhere)
    expect(runs).toEqual(before)
  })

  it('refuses a token minted on team when fetched on public (same ceiling) with the bytes of an unknown token', async () => {
    const minted = await call('/mcp/team', {
      tool: 'knowledge',
      arguments: { resource: 'notes', action: 'list' },
    })
    const { token } = JSON.parse(minted.text)
    const onTeam = await call('/mcp/team', { tool: 'continuation.fetch', arguments: { token } })
    expect(onTeam.status).toBe(200)
    const onPublic = await call('/mcp/public', { tool: 'continuation.fetch', arguments: { token } })
    const unknown = await call('/mcp/public', {
      tool: 'continuation.fetch',
      arguments: { token: createToken() },
    })
    expect(onPublic).toEqual({ status: 404, text: JSON.stringify(CONTINUATION_REFUSED) })
    expect(unknown).toEqual(onPublic)
    const reasons = events.flatMap((e) => (e.event === 'continuation_refused' ? [e.reason] : []))
    expect(reasons.slice(-2)).toEqual(['continuation_route_not_authorized', 'continuation_unknown'])
  })

  it('refuses a class-dispatcher token after the capability is revoked, and ignores a forged action in the fetch', async () => {
    const minted = await call('/mcp/team', {
      tool: 'admin',
      arguments: { action: 'export', resource: 'notes' },
    })
    const { token } = JSON.parse(minted.text)
    const served = await call('/mcp/team', {
      tool: 'continuation.fetch',
      arguments: { token, action: 'stats' },
    })
    expect(JSON.parse(served.text)).toMatchObject({ target: 'admin.export' })
    grants.set('cred-1', new Set(['notes:read']))
    try {
      const revoked = await call('/mcp/team', {
        tool: 'continuation.fetch',
        arguments: { token, action: 'stats' },
      })
      expect(revoked).toEqual({ status: 404, text: JSON.stringify(CONTINUATION_REFUSED) })
      expect(events.at(-1)).toMatchObject({
        reason: 'continuation_capability_revoked',
        target: 'admin.export',
      })
    } finally {
      grants.set('cred-1', new Set(['notes:read', 'export']))
    }
  })
})
