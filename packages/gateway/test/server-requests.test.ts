import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import {
  CLI,
  modern,
  post,
  type RunningCli,
  recorded,
  recordFile,
  startCli,
  until,
} from './fixtures/run-gateway.js'

const ASKING = new URL('./fixtures/asking-upstream.mjs', import.meta.url).pathname
const INPUT_REQUIRED = new URL('./fixtures/input-required-upstream.mjs', import.meta.url).pathname
const ALL = { sampling: {}, elicitation: {}, roots: {} }

let running: RunningCli | undefined
let upstream: ChildProcessWithoutNullStreams | undefined
afterEach(async () => {
  await running?.stop('SIGKILL')
  upstream?.kill('SIGKILL')
  running = undefined
  upstream = undefined
})

type Message = Record<string, unknown> & { id?: unknown; method?: unknown }

/** A session-era session declaring `capabilities`; its id and its headers. */
async function open(url: string, capabilities: object): Promise<Record<string, string>> {
  const init = await post(
    url,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities,
        clientInfo: { name: 'raw', version: '1' },
      },
    }),
  )
  const id = init.headers.get('mcp-session-id')
  if (id === null) throw new Error(`initialize failed: ${init.status}`)
  const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }
  await post(url, '{"jsonrpc":"2.0","method":"notifications/initialized"}', headers)
  return headers
}

/**
 * Calls `tool` on a session and reads the answer's event stream as it comes: every request in
 * it goes to `onRequest` (not awaited: the stream goes on); resolves with the final response.
 */
async function streamCall(
  url: string,
  headers: Record<string, string>,
  tool: string,
  onRequest: (request: Message) => void,
): Promise<Message> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: tool, arguments: {} },
    }),
  })
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return (await res.json()) as Message
  }
  const reader = (res.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream())
    .getReader()
  let buffer = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) throw new Error('stream ended without the response')
    buffer += value
    let end = buffer.indexOf('\n\n')
    while (end !== -1) {
      const event = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const data = event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n')
      if (data !== '') {
        const message = JSON.parse(data) as Message
        if (message.id === 7 && message.method === undefined) {
          await reader.cancel()
          return message
        }
        if (typeof message.method === 'string' && message.id !== undefined) onRequest(message)
      }
      end = buffer.indexOf('\n\n')
    }
  }
}

const answerTo = (id: unknown, result: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, result })

const textOf = (response: Message): string =>
  (response.result as { content?: { text?: string }[] } | undefined)?.content?.[0]?.text ?? ''

async function askingBehindGateway(http: boolean, args: readonly string[] = []): Promise<string> {
  if (!http) {
    running = await startCli([...args, '--', process.execPath, ASKING])
  } else {
    upstream = spawn(process.execPath, [ASKING, '--http'])
    let err = ''
    upstream.stderr.on('data', (c: Buffer) => {
      err += c.toString()
    })
    await until(() => expect(err).toContain('listening'), 30_000)
    const port = (JSON.parse(err.split('\n')[0] as string) as { port: number }).port
    running = await startCli([...args, '--upstream', `http://127.0.0.1:${port}/mcp`])
  }
  await until(
    () => expect(running?.logs().some((l) => l.event === 'tools_loaded')).toBe(true),
    30_000,
  )
  return running.url
}

describe('ServerRequestRelay (the upstream asks the client through tollgate-gateway)', () => {
  for (const http of [false, true]) {
    const kind = http ? 'an HTTP upstream with sessions' : 'a stdio child'
    it(`relays sampling, elicitation and roots requests from ${kind} to the caller and its answers back`, async () => {
      const url = await askingBehindGateway(http)
      const headers = await open(url, ALL)
      const answers: Record<string, unknown> = {
        'sampling/createMessage': {
          role: 'assistant',
          content: { type: 'text', text: 'hi from the client' },
          model: 'raw-model',
        },
        'elicitation/create': { action: 'accept', content: { name: 'Ada' } },
        'roots/list': { roots: [{ uri: 'file:///work/project', name: 'project' }] },
      }
      for (const [tool, method, expected] of [
        ['ask_sampling', 'sampling/createMessage', 'hi from the client'],
        ['ask_elicitation', 'elicitation/create', '"Ada"'],
        ['ask_roots', 'roots/list', 'file:///work/project'],
      ] as const) {
        const seen: Message[] = []
        const answered: Promise<number>[] = []
        const response = await streamCall(url, headers, tool, (request) => {
          seen.push(request)
          answered.push(
            post(url, answerTo(request.id, answers[method]), headers).then((a) => a.status),
          )
        })
        expect(seen.map((r) => r.method)).toEqual([method])
        // The caller sees the gateway's id, never the upstream's.
        expect(String(seen[0]?.id)).toMatch(/^tollgate-/)
        // The answer's own 202 may arrive after the call's result (the upstream finishes the tool
        // as soon as the gateway hands it the answer): wait for it rather than race it.
        expect(await Promise.all(answered)).toEqual([202])
        expect(response.result).not.toMatchObject({ isError: true })
        expect(textOf(response)).toContain(expected)
      }
    })
  }

  it('answers the upstream -32601 for a caller that did not declare the capability, and never asks it', async () => {
    const url = await askingBehindGateway(false)
    const headers = await open(url, { roots: {} })
    const seen: Message[] = []
    const response = await streamCall(url, headers, 'ask_sampling', (r) => seen.push(r))
    expect(seen).toEqual([])
    expect(response.result).toMatchObject({ isError: true })
    expect(textOf(response)).toBe('error -32601')
    const elicit = await streamCall(url, headers, 'ask_elicitation', (r) => seen.push(r))
    expect(textOf(elicit)).toBe('error -32601')
    expect(seen).toEqual([])
  })

  it("refuses an answer sent on another session with the request's id; the right session's answer still counts", async () => {
    const url = await askingBehindGateway(false)
    const mine = await open(url, ALL)
    const other = await open(url, ALL)
    const statuses: { from: string; status: number; code: unknown }[] = []
    const response = await streamCall(url, mine, 'ask_elicitation', (request) => {
      void (async () => {
        const stolen = await post(
          url,
          answerTo(request.id, { action: 'accept', content: { name: 'Mallory' } }),
          other,
        )
        statuses.push({
          from: 'other',
          status: stolen.status,
          code: (stolen.body?.error as { data?: { code?: unknown } } | undefined)?.data?.code,
        })
        const own = await post(
          url,
          answerTo(request.id, { action: 'accept', content: { name: 'Ada' } }),
          mine,
        )
        statuses.push({ from: 'mine', status: own.status, code: undefined })
      })()
    })
    expect(statuses).toEqual([
      { from: 'other', status: 404, code: 'ERR_RELAY_UNKNOWN' },
      { from: 'mine', status: 202, code: undefined },
    ])
    expect(textOf(response)).toContain('"Ada"')
    expect(textOf(response)).not.toContain('Mallory')
  })

  it("refuses an oversized or too deep answer with the body budget's code, and takes a fitting one", async () => {
    const url = await askingBehindGateway(false, ['--max-body-bytes', '4096'])
    const headers = await open(url, ALL)
    const refusals: { status: number; code: unknown }[] = []
    const response = await streamCall(url, headers, 'ask_roots', (request) => {
      void (async () => {
        let deep: unknown = 'x'
        for (let i = 0; i < 200; i++) deep = [deep]
        for (const result of [
          { roots: [{ uri: `file:///${'a'.repeat(8000)}` }] },
          { roots: [], deep },
        ]) {
          const refused = await post(url, answerTo(request.id, result), headers)
          refusals.push({
            status: refused.status,
            code: (refused.body?.error as { data?: { code?: unknown } } | undefined)?.data?.code,
          })
        }
        await post(url, answerTo(request.id, { roots: [{ uri: 'file:///small' }] }), headers)
      })()
    })
    expect(refusals).toEqual([
      { status: 413, code: 'ERR_BODY_TOO_LARGE' },
      { status: 422, code: 'ERR_JSON_TOO_DEEP' },
    ])
    expect(textOf(response)).toContain('file:///small')
    expect(textOf(response)).not.toContain('aaaa')
  })
})

describe('serveStdio (tollgate-gateway --stdio relaying upstream requests)', () => {
  it('writes the upstream request to the client as a line and takes its answer line back', async () => {
    const gateway = spawn(process.execPath, [CLI, '--stdio', '--', process.execPath, ASKING])
    upstream = gateway
    const lines: Message[] = []
    let partial = ''
    gateway.stdout.setEncoding('utf8')
    gateway.stdout.on('data', (chunk: string) => {
      partial += chunk
      const parts = partial.split('\n')
      partial = parts.pop() ?? ''
      for (const line of parts) if (line !== '') lines.push(JSON.parse(line) as Message)
    })
    const send = (m: object): void => {
      gateway.stdin.write(`${JSON.stringify(m)}\n`)
    }
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: ALL,
        clientInfo: { name: 'raw', version: '1' },
      },
    })
    await until(() => expect(lines.some((l) => l.id === 1)).toBe(true), 30_000)
    send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    // The first call may meet the catalog still loading: retried until the tool is served.
    await until(async () => {
      lines.length = 0
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'ask_elicitation', arguments: {} },
      })
      await until(
        () => expect(lines.some((l) => l.method === 'elicitation/create' || l.id === 2)).toBe(true),
        30_000,
      )
      expect(lines.some((l) => l.method === 'elicitation/create')).toBe(true)
    }, 30_000)
    const request = lines.find((l) => l.method === 'elicitation/create') as Message
    expect(String(request.id)).toMatch(/^tollgate-/)
    send({ jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { name: 'Ada' } } })
    await until(() => expect(lines.some((l) => l.id === 2)).toBe(true), 30_000)
    expect(textOf(lines.find((l) => l.id === 2) as Message)).toContain('"Ada"')
  })
})

describe('MessagePipeline (2026-07-28 input_required through tollgate-gateway)', () => {
  it('passes an InputRequiredResult of a tool with an outputSchema through with its requestState sealed, and the upstream state and inputResponses back', async () => {
    const record = recordFile()
    upstream = spawn(process.execPath, [INPUT_REQUIRED], {
      env: { ...process.env, RECORD_FILE: record },
    })
    let err = ''
    upstream.stderr.on('data', (c: Buffer) => {
      err += c.toString()
    })
    await until(() => expect(err).toContain('listening'), 30_000)
    const port = (JSON.parse(err.split('\n')[0] as string) as { port: number }).port
    running = await startCli(['--upstream', `http://127.0.0.1:${port}/mcp`])
    await until(
      () => expect(running?.logs().some((l) => l.event === 'tools_loaded')).toBe(true),
      30_000,
    )
    const first = await modern(running.url, 1, 'tools/call', { name: 'book', arguments: {} })
    expect(first.status).toBe(200)
    const handle = (first.body?.result as { requestState?: unknown } | undefined)?.requestState
    expect(typeof handle).toBe('string')
    expect(handle).not.toBe('opaque-state-1')
    expect(first.body?.result).toEqual({
      resultType: 'input_required',
      inputRequests: {
        seat: {
          method: 'elicitation/create',
          params: {
            message: 'Which seat?',
            requestedSchema: { type: 'object', properties: { seat: { type: 'string' } } },
          },
        },
      },
      requestState: handle,
    })
    const inputResponses = { seat: { action: 'accept', content: { seat: '12A' } } }
    const second = await modern(running.url, 2, 'tools/call', {
      name: 'book',
      arguments: {},
      inputResponses,
      requestState: handle,
    })
    expect(second.body?.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { seat: '12A' },
    })
    const calls = recorded(record).filter((m) => m.method === 'tools/call')
    expect(calls[1]?.params).toMatchObject({ inputResponses, requestState: 'opaque-state-1' })
  })
})
