// `project.export`, the tool of two rounds, across real server processes (dist/main.js) on
// 127.0.0.1, driven by a raw 2026-07-28 client that ignores the published schemas: its sealed
// `requestState` minted on one instance is completed on another holding the same key file (no
// shared store: no Redis here), a rotation keeps old handles open while the old key is listed
// and refuses them once it is dropped, and a tampered or re-bound state is refused with
// ERR_SEALED_HANDLE_REFUSED before the export runs (the `tool_invoked` sentinel stays silent).
// The control: two instances without a shared key file (each a random key) refuse each
// other's handles, so the key file is what lets any instance serve the retry.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MODERN_VERSION, send2026 } from './helpers/modern-client.js'
import { ALICE, type LiveServer, startServer } from './helpers/server.js'

const TOOL = 'project.export'
const OLD = { id: 'k-old', secret: randomBytes(32).toString('base64url') }
const NEW = { id: 'k-new', secret: randomBytes(32).toString('base64url') }

function keyFile(keys: readonly { id: string; secret: string }[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tollgate-keys-')), 'keys.json')
  writeFileSync(path, JSON.stringify({ keys }))
  return path
}

interface Round {
  readonly requestState?: string
  readonly confirm?: boolean
  readonly projectId?: string
}

/** One `tools/call` of `project.export` by ALICE, declaring the elicitation capability. */
async function callExport(server: LiveServer, round: Round = {}) {
  const params: Record<string, unknown> = {
    name: TOOL,
    arguments: { projectId: round.projectId ?? 'cygnus' },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    },
  }
  if (round.requestState !== undefined) {
    params.requestState = round.requestState
    params.inputResponses = {
      confirm: { action: 'accept', content: { confirm: round.confirm ?? true } },
    }
  }
  const res = await send2026(
    server.url('/mcp'),
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params },
    { 'mcp-method': 'tools/call', 'mcp-name': TOOL },
    { token: ALICE },
  )
  expect(res.status).toBe(200)
  return JSON.parse(res.text) as {
    result?: {
      resultType?: string
      requestState?: string
      inputRequests?: Record<string, unknown>
      isError?: boolean
      content?: { text: string }[]
    }
    error?: { code: number }
  }
}

/** The first round: the state to echo. */
async function mint(server: LiveServer): Promise<string> {
  const first = await callExport(server)
  expect(first.result?.resultType).toBe('input_required')
  expect(Object.keys(first.result?.inputRequests ?? {})).toEqual(['confirm'])
  expect(first.result?.requestState).toMatch(/^tgs1\./)
  return first.result!.requestState!
}

const errorCode = (answer: Awaited<ReturnType<typeof callExport>>) =>
  answer.result?.isError === true
    ? (JSON.parse(answer.result.content![0]!.text) as { error: { code: string } }).error.code
    : 'served'

const exported = (server: LiveServer) =>
  server.audit.named('tool_invoked').filter((e) => e.tool === TOOL).length

describe('projectExport: a sealed requestState across instances', () => {
  const running: LiveServer[] = []
  const start = async (args: string[]) => {
    const s = await startServer(args)
    running.push(s)
    return s
  }
  let a: LiveServer
  let b: LiveServer
  beforeAll(async () => {
    const file = keyFile([OLD])
    ;[a, b] = await Promise.all([
      start(['--sealing-keys-file', file]),
      start(['--sealing-keys-file', file]),
    ])
  }, 60_000)
  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop()))
  })

  it('completes on instance B a confirmation minted on instance A', async () => {
    const state = await mint(a)
    const before = exported(b)
    const done = await callExport(b, { requestState: state })
    expect(errorCode(done)).toBe('served')
    const value = JSON.parse(done.result!.content![0]!.text) as { project: { id: string } }
    expect(value.project.id).toBe('cygnus')
    expect(exported(b)).toBe(before + 1)
    const declined = await callExport(b, { requestState: state, confirm: false })
    expect(JSON.parse(declined.result!.content![0]!.text)).toEqual({ exported: false })
  })

  it('refuses a tampered requestState with ERR_SEALED_HANDLE_REFUSED and does not run the export', async () => {
    const state = await mint(a)
    const last = state.at(-2) === 'A' ? 'B' : 'A'
    const tampered = `${state.slice(0, -2)}${last}${state.at(-1)}`
    const before = exported(b)
    const refused = await callExport(b, { requestState: tampered })
    expect(errorCode(refused)).toBe('ERR_SEALED_HANDLE_REFUSED')
    expect(exported(b)).toBe(before)
    expect(b.audit.named('call_refused').some((e) => e.reason === 'sealed_handle_refused')).toBe(
      true,
    )
    // A state that is no handle at all, and a genuine one bound to other arguments: the same.
    expect(errorCode(await callExport(b, { requestState: '{"v":1,"step":"confirm"}' }))).toBe(
      'ERR_SEALED_HANDLE_REFUSED',
    )
    expect(errorCode(await callExport(b, { requestState: state, projectId: 'atlas' }))).toBe(
      'ERR_SEALED_HANDLE_REFUSED',
    )
    expect(exported(b)).toBe(before)
  })

  it('keeps opening old handles after a rotation to [new, old], and refuses them once old is dropped', async () => {
    const old = await mint(a)
    const rotated = await start(['--sealing-keys-file', keyFile([NEW, OLD])])
    expect(errorCode(await callExport(rotated, { requestState: old }))).toBe('served')
    const fresh = await mint(rotated)
    expect(fresh.startsWith('tgs1.k-new.')).toBe(true)
    const dropped = await start(['--sealing-keys-file', keyFile([NEW])])
    const before = exported(dropped)
    expect(errorCode(await callExport(dropped, { requestState: old }))).toBe(
      'ERR_SEALED_HANDLE_REFUSED',
    )
    expect(exported(dropped)).toBe(before)
    expect(errorCode(await callExport(dropped, { requestState: fresh }))).toBe('served')
  }, 60_000)

  it('refuses to start on a key file with a short secret, naming the flag and never the secret', async () => {
    const short = randomBytes(16).toString('base64url')
    const failure = await start([
      '--sealing-keys-file',
      keyFile([{ id: 'k-short', secret: short }]),
    ]).then(
      () => 'started',
      (error: Error) => error.message,
    )
    expect(failure).toMatch(/^server exited with 1: /)
    expect(failure).toContain('--sealing-keys-file: keys[0].secret')
    expect(failure).not.toContain(short)
  })

  it('control: without a shared key file each instance refuses the other’s handles', async () => {
    const [x, y] = await Promise.all([start([]), start([])])
    expect(x.audit.named('sealing_keys_ephemeral').length).toBe(1)
    const state = await mint(x)
    expect(errorCode(await callExport(x, { requestState: state }))).toBe('served')
    expect(errorCode(await callExport(y, { requestState: state }))).toBe(
      'ERR_SEALED_HANDLE_REFUSED',
    )
  }, 60_000)
})
