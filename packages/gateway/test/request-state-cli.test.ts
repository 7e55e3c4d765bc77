// Sealed requestState through the CLI: real gateway processes (`dist/cli.js`) on 127.0.0.1 in
// front of a real 2026-07-28 HTTP upstream that answers `input_required` and completes when
// its own state comes back, recording every body it receives; a raw JSON-RPC client that
// sends whatever state it likes. Needs `pnpm --filter @tollgate/gateway... build` first.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { parseGatewayArgs } from '../src/cli-options.js'
import { hashBearerToken } from '../src/config.js'
import { gatewayControls, startGateway } from '../src/gateway.js'
import {
  CLI,
  post,
  type RpcAnswer,
  type RunningCli,
  recorded,
  recordFile,
  startCli,
  until,
} from './fixtures/run-gateway.js'

const INPUT_REQUIRED = new URL('./fixtures/input-required-upstream.mjs', import.meta.url).pathname
const V = '2026-07-28'
const UPSTREAM_STATE = 'opaque-state-1'
const ALICE = randomBytes(24).toString('base64url')
const BOB = randomBytes(24).toString('base64url')
const OLD = { id: 'old', secret: randomBytes(32).toString('base64url') }
const NEW = { id: 'new', secret: randomBytes(32).toString('base64url') }
const SEAT = { seat: { action: 'accept', content: { seat: '12A' } } }

interface Upstream {
  readonly proc: ChildProcessWithoutNullStreams
  readonly url: string
  readonly record: string
}

async function startUpstream(env: Record<string, string> = {}): Promise<Upstream> {
  const record = recordFile()
  const proc = spawn(process.execPath, [INPUT_REQUIRED], {
    env: { ...process.env, RECORD_FILE: record, ...env },
  })
  let err = ''
  proc.stderr.on('data', (c: Buffer) => {
    err += c.toString()
  })
  await until(() => expect(err).toContain('listening'), 30_000)
  const port = (JSON.parse(err.split('\n')[0] as string) as { port: number }).port
  return { proc, url: `http://127.0.0.1:${port}/mcp`, record }
}

const gateways: RunningCli[] = []
const upstreams: Upstream[] = []
let shared: Upstream
beforeAll(async () => {
  shared = await startUpstream()
  upstreams.push(shared)
}, 60_000)
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.stop('SIGKILL')))
})
afterAll(() => {
  for (const u of upstreams) u.proc.kill('SIGKILL')
})

/** A gateway in front of `upstream` whose config holds `keys` and the two credentials. */
async function gateway(
  upstream: Upstream,
  keys: readonly { id: string; secret: string }[],
  extra: Record<string, unknown> = {},
): Promise<RunningCli> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-seal-'))
  const config = join(dir, 'gateway.json')
  writeFileSync(
    config,
    JSON.stringify({
      credentials: [
        { name: 'alice', tokenSha256: hashBearerToken(ALICE) },
        { name: 'bob', tokenSha256: hashBearerToken(BOB) },
      ],
      sealingKeys: keys,
      ...extra,
    }),
  )
  const running = await startCli(['--config', config, '--upstream', upstream.url])
  gateways.push(running)
  await until(
    () => expect(running.logs().some((l) => l.event === 'tools_loaded')).toBe(true),
    30_000,
  )
  return running
}

/** A raw 2026-07-28 `tools/call` as `token`, with whatever `extra` params (a state) it likes. */
function call(
  g: RunningCli,
  token: string,
  name: string,
  extra: Record<string, unknown> = {},
  args: Record<string, unknown> = { note: 'a' },
): Promise<RpcAnswer> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      ...extra,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': V,
        'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
      },
    },
  })
  return post(g.url, body, {
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': V,
    'mcp-method': 'tools/call',
    'mcp-name': name,
  })
}

/** Round one: the sealed handle the caller is given. */
async function mint(g: RunningCli, token = ALICE, name = 'book'): Promise<string> {
  const first = await call(g, token, name)
  const result = first.body?.result as { resultType?: unknown; requestState?: unknown }
  expect(result?.resultType).toBe('input_required')
  expect(typeof result.requestState).toBe('string')
  return result.requestState as string
}

const toolCalls = (u: Upstream) => recorded(u.record).filter((m) => m.method === 'tools/call')

function expectRefused(answer: RpcAnswer, code: string, handle: string, limit?: number): void {
  expect(answer.status).toBe(200)
  const error = answer.body?.error as { code?: unknown; data?: Record<string, unknown> }
  expect(error?.code).toBe(-32016)
  expect(error?.data).toEqual(limit === undefined ? { code } : { code, limit })
  expect(JSON.stringify(answer.body)).not.toContain(handle.slice(0, 64))
}

describe('requestStateSeal (through tollgate-gateway)', () => {
  it('hands the caller a handle instead of the upstream state, and another instance with the same keys completes the retry with the upstream state', async () => {
    const [a, b] = await Promise.all([gateway(shared, [OLD]), gateway(shared, [OLD])])
    const handle = await mint(a)
    expect(handle).not.toBe(UPSTREAM_STATE)
    expect(handle.startsWith('tgs1.old.')).toBe(true)
    const before = toolCalls(shared).length
    const second = await call(b, ALICE, 'book', { requestState: handle, inputResponses: SEAT })
    expect(second.body?.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { seat: '12A' },
    })
    const arrived = toolCalls(shared).slice(before)
    expect(arrived.map((m) => (m.params as { requestState?: unknown }).requestState)).toEqual([
      UPSTREAM_STATE,
    ])
  })

  it('refuses the raw upstream state, a tampered handle, another principal, another tool, other arguments and an over-long state, none of which reaches the upstream', async () => {
    const g = await gateway(shared, [NEW])
    const handle = await mint(g)
    const flipped = handle.at(-1) === 'A' ? 'B' : 'A'
    const before = toolCalls(shared).length
    const attempts: [RpcAnswer, string, number?][] = [
      [await call(g, ALICE, 'book', { requestState: UPSTREAM_STATE }), 'ERR_REQUEST_STATE_INVALID'],
      [
        await call(g, ALICE, 'book', { requestState: `${handle.slice(0, -1)}${flipped}` }),
        'ERR_REQUEST_STATE_INVALID',
      ],
      [await call(g, BOB, 'book', { requestState: handle }), 'ERR_REQUEST_STATE_INVALID'],
      [await call(g, ALICE, 'cancel', { requestState: handle }), 'ERR_REQUEST_STATE_INVALID'],
      [
        await call(g, ALICE, 'book', { requestState: handle }, { note: 'b' }),
        'ERR_REQUEST_STATE_INVALID',
      ],
      [
        await call(g, ALICE, 'book', { requestState: `tgs1.new.${'A'.repeat(20_000)}` }),
        'ERR_REQUEST_STATE_TOO_LARGE',
        16_384,
      ],
    ]
    for (const [answer, code, limit] of attempts) expectRefused(answer, code, handle, limit)
    expect(toolCalls(shared).length).toBe(before)
    const reasons = g
      .logs()
      .filter((l) => l.event === 'request_state_refused')
      .map((l) => l.reason)
    expect(reasons).toEqual([
      'handle_malformed',
      'handle_bad_mac',
      'handle_principal_mismatch',
      'handle_tool_mismatch',
      'handle_arguments_mismatch',
      'handle_too_long',
    ])
    // The handle itself still works for its own caller, tool and arguments.
    const own = await call(g, ALICE, 'book', { requestState: handle, inputResponses: SEAT })
    expect(own.body?.result).toMatchObject({ structuredContent: { seat: '12A' } })
  })

  it('refuses a handle from a gateway with the same keys in front of another upstream, which never sees it, while one in front of the same upstream completes it', async () => {
    const other = await startUpstream()
    upstreams.push(other)
    const [a, sameUpstream, otherUpstream] = await Promise.all([
      gateway(shared, [NEW]),
      gateway(shared, [NEW]),
      gateway(other, [NEW]),
    ])
    const handle = await mint(a)
    const retry = { requestState: handle, inputResponses: SEAT }
    const refused = await call(otherUpstream, ALICE, 'book', retry)
    expectRefused(refused, 'ERR_REQUEST_STATE_INVALID', handle)
    expect(toolCalls(other)).toEqual([])
    expect(otherUpstream.logs().find((l) => l.event === 'request_state_refused')).toMatchObject({
      reason: 'handle_tool_mismatch',
    })
    expect((await call(sameUpstream, ALICE, 'book', retry)).body?.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { seat: '12A' },
    })
  })

  it('refuses a handle from a gateway whose config names another upstreamId, though both front the same URL', async () => {
    const [billing, calendar] = await Promise.all([
      gateway(shared, [NEW], { requestState: { upstreamId: 'billing' } }),
      gateway(shared, [NEW], { requestState: { upstreamId: 'calendar' } }),
    ])
    const handle = await mint(billing)
    const before = toolCalls(shared).length
    const refused = await call(calendar, ALICE, 'book', {
      requestState: handle,
      inputResponses: SEAT,
    })
    expectRefused(refused, 'ERR_REQUEST_STATE_INVALID', handle)
    expect(toolCalls(shared).length).toBe(before)
  })

  it('refuses a state past requestState.ttlMs with ERR_REQUEST_STATE_EXPIRED', async () => {
    const g = await gateway(shared, [NEW], { requestState: { ttlMs: 1000 } })
    const handle = await mint(g)
    // Waiting past the expiry is the precondition, not a measured duration.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const before = toolCalls(shared).length
    const late = await call(g, ALICE, 'book', { requestState: handle, inputResponses: SEAT })
    expectRefused(late, 'ERR_REQUEST_STATE_EXPIRED', handle)
    expect(toolCalls(shared).length).toBe(before)
  })

  it('rotates without downtime: old handles open after [new, old], new ones are signed by new, and old ones are refused once old is dropped', async () => {
    const a = await gateway(shared, [OLD])
    const oldHandles = [await mint(a), await mint(a)]
    const complete = (g: RunningCli, handle: string) =>
      call(g, ALICE, 'book', { requestState: handle, inputResponses: SEAT })

    const rotated = await gateway(shared, [NEW, OLD])
    expect((await complete(rotated, oldHandles[0] as string)).body?.result).toMatchObject({
      structuredContent: { seat: '12A' },
    })
    const newHandle = await mint(rotated)
    expect(newHandle.startsWith('tgs1.new.')).toBe(true)
    expect(rotated.logs().find((l) => l.event === 'request_state_keys')).toMatchObject({
      signer: 'new',
      keys: 2,
      generated: false,
    })

    const dropped = await gateway(shared, [NEW])
    const before = toolCalls(shared).length
    expectRefused(
      await complete(dropped, oldHandles[1] as string),
      'ERR_REQUEST_STATE_INVALID',
      oldHandles[1] as string,
    )
    expect(toolCalls(shared).length).toBe(before)
    expect(dropped.logs().find((l) => l.event === 'request_state_refused')).toMatchObject({
      reason: 'handle_unknown_key',
      keyId: 'old',
    })
    expect((await complete(dropped, newHandle)).body?.result).toMatchObject({
      structuredContent: { seat: '12A' },
    })
  })

  it('answers -32017 ERR_UPSTREAM_STATE_TOO_LARGE, without the state, when the upstream state would seal past maxHandleBytes', async () => {
    const big = await startUpstream({ STATE_BYTES: '20000' })
    upstreams.push(big)
    const g = await gateway(big, [NEW])
    const first = await call(g, ALICE, 'book')
    expect(first.body?.error).toEqual({
      code: -32017,
      message: 'upstream request state exceeds the size limit (limit 16384)',
      data: { code: 'ERR_UPSTREAM_STATE_TOO_LARGE', limit: 16384 },
    })
    expect(JSON.stringify(first.body)).not.toContain('s'.repeat(100))
  })
})

describe('startGateway with the request-state control removed', () => {
  it('forwards a forged state to the upstream, which the same gateway with the control refuses', async () => {
    const cli = parseGatewayArgs(['--upstream', shared.url, '--port', '0'])
    if (cli === 'help') throw new Error('unexpected help')
    const controls = gatewayControls(cli)
    const forged = 'forged-state-from-the-caller'
    const seenBy = async (withControl: boolean): Promise<unknown[]> => {
      const running = await startGateway(
        cli,
        withControl ? controls : { ...controls, requestState: undefined },
        () => {},
      )
      try {
        const before = toolCalls(shared).length
        const url = `http://127.0.0.1:${running.port}/mcp`
        const answer = await post(
          url,
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name: 'book',
              arguments: {},
              requestState: forged,
              inputResponses: SEAT,
              _meta: {
                'io.modelcontextprotocol/protocolVersion': V,
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            },
          }),
          { 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'book' },
        )
        if (withControl) expectRefused(answer, 'ERR_REQUEST_STATE_INVALID', forged)
        return toolCalls(shared)
          .slice(before)
          .map((m) => (m.params as { requestState?: unknown }).requestState)
      } finally {
        await running.stop()
      }
    }
    expect(await seenBy(true)).toEqual([])
    expect(await seenBy(false)).toEqual([forged])
  })
})

describe('requestStateSeal (through tollgate-gateway --stdio)', () => {
  it('seals the state for the one stdio client, completes with the handle, and refuses the raw state', async () => {
    const proc = spawn(process.execPath, [CLI, '--stdio', '--upstream', shared.url])
    try {
      const lines: Record<string, unknown>[] = []
      let partial = ''
      proc.stdout.setEncoding('utf8')
      proc.stdout.on('data', (chunk: string) => {
        partial += chunk
        const parts = partial.split('\n')
        partial = parts.pop() ?? ''
        for (const line of parts) if (line !== '') lines.push(JSON.parse(line))
      })
      const ask = async (id: number, extra: Record<string, unknown>) => {
        proc.stdin.write(
          `${JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: {
              name: 'book',
              arguments: {},
              ...extra,
              _meta: {
                'io.modelcontextprotocol/protocolVersion': V,
                'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
              },
            },
          })}\n`,
        )
        await until(() => expect(lines.some((l) => l.id === id)).toBe(true), 30_000)
        return lines.find((l) => l.id === id) as Record<string, unknown>
      }
      // The first call may meet the catalog still loading: retried until the tool is served.
      let handle = ''
      let id = 1
      await until(async () => {
        const first = await ask(id++, {})
        handle = (first.result as { requestState?: string } | undefined)?.requestState ?? ''
        expect(handle.startsWith('tgs1.local-')).toBe(true)
      }, 30_000)
      const before = toolCalls(shared).length
      const raw = await ask(100, { requestState: UPSTREAM_STATE, inputResponses: SEAT })
      expect(raw.error).toMatchObject({
        code: -32016,
        data: { code: 'ERR_REQUEST_STATE_INVALID' },
      })
      expect(toolCalls(shared).length).toBe(before)
      const done = await ask(101, { requestState: handle, inputResponses: SEAT })
      expect(done.result).toMatchObject({ structuredContent: { seat: '12A' } })
    } finally {
      proc.kill('SIGKILL')
    }
  })
})
