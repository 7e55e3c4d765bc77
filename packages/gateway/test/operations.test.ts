import { describe, expect, it } from 'vitest'
import {
  callBody,
  MISBEHAVING,
  post,
  type RunningCli,
  recorded,
  recordFile,
  session,
  startCliPerTest,
  until,
} from './fixtures/run-gateway.js'

const startCli = startCliPerTest()
let running: RunningCli | undefined

describe('startGateway operations (through tollgate-gateway)', () => {
  it('passes a well-formed W3C traceparent into _meta to the upstream, and drops a malformed one', async () => {
    const file = recordFile()
    running = await startCli(['--', process.execPath, MISBEHAVING], { RECORD_FILE: file })
    const init = await post(
      running.url,
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
    )
    const sessionId = init.headers.get('mcp-session-id') ?? ''
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
    const base = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }
    await post(running.url, callBody(1, 'echo', { message: 'traced' }), { ...base, traceparent })
    await post(running.url, callBody(2, 'echo', { message: 'untraced' }), {
      ...base,
      traceparent: 'not-a-trace',
    })
    const seen = recorded(file).filter((m) => m.method === 'tools/call')
    expect(seen.map((m) => (m.params as { _meta?: unknown })._meta)).toEqual([
      { traceparent },
      undefined,
    ])
  })

  it('drains on SIGTERM: a call in flight finishes, a new one is refused, then the child stops', async () => {
    const file = recordFile()
    running = await startCli(['--drain-timeout-ms', '60000', '--', process.execPath, MISBEHAVING], {
      RECORD_FILE: file,
    })
    const call = await session(running.url)
    const slow = call(callBody(1, 'slow', { ms: 1500 }))
    // The call is in flight (the child has it) before the signal.
    await until(() =>
      expect(recorded(file).some((m) => (m.params as { name?: string })?.name === 'slow')).toBe(
        true,
      ),
    )
    running.proc.kill('SIGTERM')
    await until(() => expect(running?.logs().some((l) => l.event === 'stopping')).toBe(true))
    // A kept-alive connection is answered 503; a new connection is not accepted at all.
    const late = await call(callBody(2, 'echo', { message: 'late' })).catch(
      () => 'refused' as const,
    )
    if (late !== 'refused') {
      expect(late.status).toBe(503)
      expect(late.body?.error).toMatchObject({ data: { code: 'ERR_GATEWAY_DRAINING' } })
    }
    expect(recorded(file).some((m) => (m.params as { name?: string })?.name === 'echo')).toBe(false)
    const answer = await slow
    expect(answer.body?.result).toMatchObject({ content: [{ text: 'slow done' }] })
    expect(await running.exited).toBe(0)
  })

  it('answers /healthz and /readyz', async () => {
    running = await startCli(['--', process.execPath, MISBEHAVING])
    expect((await fetch(`http://127.0.0.1:${running.port}/healthz`)).status).toBe(200)
    await until(async () =>
      expect((await fetch(`http://127.0.0.1:${running?.port}/readyz`)).status).toBe(200),
    )
  })
})
