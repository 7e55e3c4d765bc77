import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  callBody,
  EVERYTHING,
  modern,
  type RpcAnswer,
  type RunningCli,
  session,
  startCli,
} from './fixtures/run-gateway.js'

let running: RunningCli
beforeAll(async () => {
  running = await startCli(['--', process.execPath, EVERYTHING, 'stdio'])
})
afterAll(async () => {
  await running.stop('SIGKILL')
})

/** The answer's framing: its declared length, its transfer coding, and its body's real length. */
function framing(answer: RpcAnswer): Record<string, unknown> {
  return {
    contentLength: answer.headers.get('content-length'),
    transferEncoding: answer.headers.get('transfer-encoding'),
    bodyBytes: String(Buffer.byteLength(JSON.stringify(answer.body))),
  }
}

describe('serveHttp', () => {
  it('answers a session-era tools/call with one JSON body of declared length, not chunked', async () => {
    const call = await session(running.url)
    // Non-ASCII text: the declared length counts bytes, not characters.
    const answer = await call(callBody(1, 'echo', { message: 'héllo ✓ '.repeat(500) }))
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('application/json')
    const f = framing(answer)
    expect(f.transferEncoding).toBeNull()
    expect(f.contentLength).toBe(f.bodyBytes)
  })

  it('answers a 2026-07-28 tools/call with one JSON body of declared length, not chunked', async () => {
    const answer = await modern(running.url, 2, 'tools/call', {
      name: 'echo',
      arguments: { message: 'x'.repeat(4000) },
    })
    expect(answer.status).toBe(200)
    expect(answer.body?.result).toMatchObject({ resultType: 'complete' })
    const f = framing(answer)
    expect(f.transferEncoding).toBeNull()
    expect(f.contentLength).toBe(f.bodyBytes)
  })
})
