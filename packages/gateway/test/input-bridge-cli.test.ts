// A 2025-era upstream's requests to its client, carried to a 2026-07-28 caller as
// `input_required`, through the built CLI (`dist/cli.js`): real gateway processes on 127.0.0.1
// in front of a real stdio child (parking-upstream.mjs, raw JSON-RPC, recording every line it
// receives) or a real Streamable HTTP upstream with sessions (asking-upstream.mjs, SDK 1.32),
// and a raw JSON-RPC client that sends whatever it likes. Needs
// `pnpm --filter @tollgate/gateway... build` first.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { hashBearerToken } from '../src/config.js'
import {
  post,
  type RpcAnswer,
  type RunningCli,
  recorded,
  recordFile,
  startCliPerTest,
  until,
} from './fixtures/run-gateway.js'

const PARKING = new URL('./fixtures/parking-upstream.mjs', import.meta.url).pathname
const ASKING = new URL('./fixtures/asking-upstream.mjs', import.meta.url).pathname
const V = '2026-07-28'
const ELICIT = { elicitation: {} }
const ALL = { elicitation: {}, roots: {}, sampling: {} }
const KEY = { id: 'k1', secret: randomBytes(32).toString('base64url') }
const ALICE = randomBytes(24).toString('base64url')
const BOB = randomBytes(24).toString('base64url')

const startCli = startCliPerTest()
let httpUpstream: ChildProcessWithoutNullStreams | undefined
afterEach(() => {
  httpUpstream?.kill('SIGKILL')
  httpUpstream = undefined
})

interface Gateway {
  readonly g: RunningCli
  readonly record: string
}

/** A gateway in front of a parking-upstream child, with `config` when given. */
async function gateway(config?: Record<string, unknown>, record = recordFile()): Promise<Gateway> {
  const args: string[] = []
  if (config !== undefined) {
    const file = join(mkdtempSync(join(tmpdir(), 'gw-bridge-')), 'gateway.json')
    // A config without credentials serves anonymous loopback callers on an anonymous route.
    writeFileSync(file, JSON.stringify({ routes: [{ path: '/mcp', anonymous: true }], ...config }))
    args.push('--config', file)
  }
  const g = await startCli([...args, '--', process.execPath, PARKING], { RECORD_FILE: record })
  await until(() => expect(g.logs().some((l) => l.event === 'tools_loaded')).toBe(true), 30_000)
  return { g, record }
}

/** A raw 2026-07-28 request declaring `capabilities`, with whatever params it likes. */
function call(
  g: RunningCli,
  name: string,
  extra: Record<string, unknown> = {},
  capabilities: object = ELICIT,
  token?: string,
  args: Record<string, unknown> = { greeting: 'hey' },
): Promise<RpcAnswer> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 9,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      ...extra,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': V,
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    },
  })
  return post(g.url, body, {
    'mcp-protocol-version': V,
    'mcp-method': 'tools/call',
    'mcp-name': name,
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  })
}

interface InputRequired {
  resultType: string
  inputRequests: Record<string, { method: string; params?: Record<string, unknown> }>
  requestState: string
}

function inputRequired(answer: RpcAnswer): InputRequired {
  const result = answer.body?.result as InputRequired | undefined
  expect(result?.resultType).toBe('input_required')
  expect(typeof result?.requestState).toBe('string')
  return result as InputRequired
}

const text = (answer: RpcAnswer) =>
  (answer.body?.result as { content?: { text?: string }[] } | undefined)?.content?.[0]?.text

/** What the upstream received that was not a request or notification: its requests' answers. */
const answersTo = (record: string) => recorded(record).filter((m) => m.method === undefined)
const received = (record: string, method: string) =>
  recorded(record).filter((m) => m.method === method)

function expectCode(answer: RpcAnswer, rpc: number, code: string, limit?: number): void {
  const error = answer.body?.error as { code?: unknown; data?: unknown } | undefined
  expect(error?.code).toBe(rpc)
  expect(error?.data).toEqual(limit === undefined ? { code } : { code, limit })
}

describe('InputBridge (through tollgate-gateway, stdio child)', () => {
  it('answers input_required with the upstream elicitation under a key of its own, and the retry gets the result the upstream computed from the answer', async () => {
    const { g, record } = await gateway()
    const first = inputRequired(await call(g, 'greet'))
    const keys = Object.keys(first.inputRequests)
    expect(keys).toHaveLength(1)
    const key = keys[0] as string
    // The fixture's own request, as it sends it (ids `up-N`, which the caller never sees).
    expect(first.inputRequests[key]).toEqual({
      method: 'elicitation/create',
      params: {
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      },
    })
    expect(JSON.stringify(first)).not.toContain('up-1')
    const answer = { action: 'accept', content: { name: 'Ada' } }
    const second = await call(g, 'greet', {
      requestState: first.requestState,
      inputResponses: { [key]: { ...answer, extra: 'dropped' } },
    })
    expect(second.body?.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Hello, Ada (hey)' }],
    })
    // The upstream got the caller's answer, rebuilt (no extra key), under its own request id;
    // the retry sent no new call.
    expect(answersTo(record)).toEqual([{ jsonrpc: '2.0', id: 'up-1', result: answer }])
    expect(received(record, 'tools/call')).toHaveLength(1)
  })

  it('runs a call that asks twice as two rounds, each with a new state, and refuses the spent state with ERR_REQUEST_STATE_CALL_GONE', async () => {
    const { g, record } = await gateway()
    const first = inputRequired(await call(g, 'greet_twice', {}, ALL))
    const [nameKey] = Object.keys(first.inputRequests) as [string]
    const second = inputRequired(
      await call(
        g,
        'greet_twice',
        {
          requestState: first.requestState,
          inputResponses: { [nameKey]: { action: 'accept', content: { name: 'Ada' } } },
        },
        ALL,
      ),
    )
    expect(second.requestState).not.toBe(first.requestState)
    const [rootsKey] = Object.keys(second.inputRequests) as [string]
    expect(second.inputRequests[rootsKey]?.method).toBe('roots/list')
    const replay = await call(
      g,
      'greet_twice',
      {
        requestState: first.requestState,
        inputResponses: { [nameKey]: { action: 'accept', content: { name: 'Eve' } } },
      },
      ALL,
    )
    expectCode(replay, -32016, 'ERR_REQUEST_STATE_CALL_GONE')
    const done = await call(
      g,
      'greet_twice',
      {
        requestState: second.requestState,
        inputResponses: { [rootsKey]: { roots: [{ uri: 'file:///work' }] } },
      },
      ALL,
    )
    expect(text(done)).toBe('Hello, Ada at file:///work')
    expect(answersTo(record)).toHaveLength(2)
  })

  it('carries requests the upstream sends together in one round', async () => {
    const { g } = await gateway()
    const first = inputRequired(await call(g, 'ask_pair', {}, ALL))
    const methods = Object.values(first.inputRequests).map((r) => r.method)
    expect(methods.sort()).toEqual(['elicitation/create', 'roots/list'])
    const responses: Record<string, unknown> = {}
    for (const [key, r] of Object.entries(first.inputRequests)) {
      responses[key] =
        r.method === 'roots/list'
          ? { roots: [{ uri: 'file:///a' }] }
          : { action: 'accept', content: { name: 'Bo' } }
    }
    const done = await call(
      g,
      'ask_pair',
      { requestState: first.requestState, inputResponses: responses },
      ALL,
    )
    expect(text(done)).toBe('Hello, Bo at file:///a')
  })

  it('refuses inputResponses that do not answer the requests as their methods shape them with -32602, delivering nothing and keeping the call parked', async () => {
    const { g, record } = await gateway()
    const first = inputRequired(await call(g, 'greet'))
    const [key] = Object.keys(first.inputRequests) as [string]
    const bad = [
      { [key]: { action: 'maybe' } },
      { [key]: { action: 'accept', content: { name: { nested: true } } } },
      { other: { action: 'accept' } },
      { [key]: { action: 'accept' }, other: { action: 'accept' } },
      'not-an-object',
    ]
    for (const inputResponses of bad) {
      const answer = await call(g, 'greet', { requestState: first.requestState, inputResponses })
      expect((answer.body?.error as { code?: unknown } | undefined)?.code).toBe(-32602)
      expect(JSON.stringify(answer.body)).not.toContain('maybe')
    }
    expect(answersTo(record)).toEqual([])
    const done = await call(g, 'greet', {
      requestState: first.requestState,
      inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } },
    })
    expect(text(done)).toBe('Hello, Ada (hey)')
  })

  it('refuses a tampered state, one for other arguments, and one parked in another instance holding the same keys, none reaching the upstream', async () => {
    const config = { sealingKeys: [KEY] }
    const [a, b] = await Promise.all([gateway(config), gateway(config)])
    const first = inputRequired(await call(a.g, 'greet'))
    const [key] = Object.keys(first.inputRequests) as [string]
    const inputResponses = { [key]: { action: 'accept', content: { name: 'Ada' } } }
    const flipped = first.requestState.at(-1) === 'A' ? 'B' : 'A'
    const tampered = `${first.requestState.slice(0, -1)}${flipped}`
    expectCode(
      await call(a.g, 'greet', { requestState: tampered, inputResponses }),
      -32016,
      'ERR_REQUEST_STATE_INVALID',
    )
    expectCode(
      await call(
        a.g,
        'greet',
        { requestState: first.requestState, inputResponses },
        ELICIT,
        undefined,
        {
          greeting: 'other',
        },
      ),
      -32016,
      'ERR_REQUEST_STATE_INVALID',
    )
    expectCode(
      await call(b.g, 'greet', { requestState: first.requestState, inputResponses }),
      -32016,
      'ERR_REQUEST_STATE_CALL_GONE',
    )
    expect(answersTo(a.record)).toEqual([])
    expect(received(b.record, 'tools/call')).toEqual([])
    // The call is still parked for its own caller, retrying where it was parked.
    const done = await call(a.g, 'greet', { requestState: first.requestState, inputResponses })
    expect(text(done)).toBe('Hello, Ada (hey)')
  })

  it('cancels a parked call upstream once parkedCalls.ttlMs passes, and refuses its state with ERR_REQUEST_STATE_CALL_GONE', async () => {
    const { g, record } = await gateway({ parkedCalls: { ttlMs: 1000 } })
    const first = inputRequired(await call(g, 'greet'))
    const [key] = Object.keys(first.inputRequests) as [string]
    const [tool] = received(record, 'tools/call')
    await until(() =>
      expect(received(record, 'notifications/cancelled')).toEqual([
        expect.objectContaining({ params: { requestId: tool?.id, reason: 'cancelled' } }),
      ]),
    )
    const late = await call(g, 'greet', {
      requestState: first.requestState,
      inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } },
    })
    expectCode(late, -32016, 'ERR_REQUEST_STATE_CALL_GONE')
    expect(g.logs().some((l) => l.event === 'parked_call_expired')).toBe(true)
  })

  it('refuses the upstream request -32601 for a caller that did not declare the capability, as without the bridge', async () => {
    const { g, record } = await gateway()
    const answer = await call(g, 'greet', {}, { sampling: {} })
    expect(answer.body?.result).toMatchObject({
      isError: true,
      content: [{ text: 'error -32601' }],
    })
    expect(answersTo(record)).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ code: -32601 }) }),
    ])
  })
})

describe('InputBridge removed (parkedCalls.maxCalls 0)', () => {
  it('refuses the upstream request -32601 and the call fails, though the caller declared the capability', async () => {
    const { g, record } = await gateway({ parkedCalls: { maxCalls: 0 } })
    const answer = await call(g, 'greet')
    expect(answer.body?.result).toMatchObject({
      isError: true,
      content: [{ text: 'error -32601' }],
    })
    expect(answersTo(record)).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ code: -32601 }) }),
    ])
  })
})

/** Spawns `script --http` with `env`; its URL once it listens. */
async function startHttpUpstream(
  script: string,
  env: Record<string, string> = {},
): Promise<string> {
  httpUpstream = spawn(process.execPath, [script, '--http'], { env: { ...process.env, ...env } })
  let err = ''
  httpUpstream.stderr.on('data', (c: Buffer) => {
    err += c.toString()
  })
  await until(() => expect(err).toContain('listening'), 30_000)
  const port = (JSON.parse(err.split('\n')[0] as string) as { port: number }).port
  return `http://127.0.0.1:${port}/mcp`
}

describe('parkedCalls (through tollgate-gateway, HTTP upstream with sessions)', () => {
  it('cancels a parked call on an HTTP upstream once ttlMs passes: notifications/cancelled names its request', async () => {
    const record = recordFile()
    const url = await startHttpUpstream(PARKING, { RECORD_FILE: record })
    const file = join(mkdtempSync(join(tmpdir(), 'gw-bridge-')), 'gateway.json')
    writeFileSync(
      file,
      JSON.stringify({
        routes: [{ path: '/mcp', anonymous: true }],
        parkedCalls: { ttlMs: 1000 },
      }),
    )
    const g = await startCli(['--config', file, '--upstream', url])
    await until(() => expect(g.logs().some((l) => l.event === 'tools_loaded')).toBe(true), 30_000)
    inputRequired(await call(g, 'greet'))
    const [tool] = received(record, 'tools/call')
    await until(() =>
      expect(received(record, 'notifications/cancelled')).toEqual([
        expect.objectContaining({ params: { requestId: tool?.id, reason: 'cancelled' } }),
      ]),
    )
  })

  it('refuses the call past maxPerPrincipal and past maxCalls with ERR_RELAY_LIMIT, and serves the calls already parked and other principals', async () => {
    const url = await startHttpUpstream(ASKING)
    const file = join(mkdtempSync(join(tmpdir(), 'gw-bridge-')), 'gateway.json')
    writeFileSync(
      file,
      JSON.stringify({
        credentials: [
          { name: 'alice', tokenSha256: hashBearerToken(ALICE) },
          { name: 'bob', tokenSha256: hashBearerToken(BOB) },
        ],
        parkedCalls: { maxCalls: 3, maxPerPrincipal: 2 },
      }),
    )
    const g = await startCli(['--config', file, '--upstream', url])
    await until(() => expect(g.logs().some((l) => l.event === 'tools_loaded')).toBe(true), 30_000)
    const ask = (token: string) => call(g, 'ask_elicitation', {}, ELICIT, token, {})
    const alice = [inputRequired(await ask(ALICE)), inputRequired(await ask(ALICE))] as const
    expectCode(await ask(ALICE), -32013, 'ERR_RELAY_LIMIT', 2)
    const bob = inputRequired(await ask(BOB))
    expectCode(await ask(BOB), -32013, 'ERR_RELAY_LIMIT', 3)
    for (const [parked, token] of [
      [alice[0], ALICE],
      [bob, BOB],
    ] as const) {
      const [key] = Object.keys(parked.inputRequests) as [string]
      const done = await call(
        g,
        'ask_elicitation',
        {
          requestState: parked.requestState,
          inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } },
        },
        ELICIT,
        token,
        {},
      )
      expect(JSON.parse(text(done) as string)).toEqual({
        action: 'accept',
        content: { name: 'Ada' },
      })
    }
    // A slot freed: alice parks again.
    inputRequired(await ask(ALICE))
    expect(g.logs().filter((l) => l.event === 'parked_call_refused')).toHaveLength(2)
  })
})
