import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import {
  callBody,
  EVERYTHING,
  modern,
  type RunningCli,
  recorded,
  recordFile,
  session,
  startCli,
  until,
} from './fixtures/run-gateway.js'

const STATELESS = new URL('./fixtures/stateless-upstream.mjs', import.meta.url).pathname

let running: RunningCli | undefined
let upstream: ChildProcess | undefined
afterEach(async () => {
  await running?.stop('SIGKILL')
  upstream?.kill('SIGKILL')
  running = undefined
  upstream = undefined
})

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

describe('httpUpstream (tollgate-gateway --upstream <url>)', () => {
  it('detects a session-era Streamable HTTP upstream (server-everything) and serves both eras in front of it', async () => {
    const port = await freePort()
    upstream = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['pipe', 'ignore', 'pipe'],
    })
    let err = ''
    upstream.stderr?.on('data', (c: Buffer) => {
      err += c.toString()
    })
    await until(() => expect(err).toContain('listening'), 30_000)
    running = await startCli(['--upstream', `http://127.0.0.1:${port}/mcp`])
    await until(
      () => expect(running?.logs().some((l) => l.event === 'tools_loaded')).toBe(true),
      30_000,
    )
    expect(running.logs().find((l) => l.event === 'upstream_ready')).toMatchObject({
      era: 'session',
    })
    const call = await session(running.url)
    const echo = await call(callBody(1, 'echo', { message: 'over http' }))
    expect(echo.body?.result).toMatchObject({ content: [{ text: 'Echo: over http' }] })
    const refused = await call(callBody(2, 'echo', { message: 'x', injected: 1 }))
    expect(refused.body?.result).toMatchObject({ isError: true })
    const viaModern = await modern(running.url, 3, 'tools/call', {
      name: 'echo',
      arguments: { message: 'modern' },
    })
    expect(viaModern.body?.result).toMatchObject({
      resultType: 'complete',
      content: [{ text: 'Echo: modern' }],
    })
  })

  it('detects a 2026-07-28 upstream and mirrors the body in its headers; a refused call never reaches it', async () => {
    const file = recordFile()
    upstream = spawn(process.execPath, [STATELESS], {
      env: { ...process.env, RECORD_FILE: file },
      stdio: ['pipe', 'ignore', 'pipe'],
    })
    const port = await new Promise<number>((resolve) => {
      upstream?.stderr?.on('data', (c: Buffer) => {
        const m = /"port":(\d+)/.exec(c.toString())
        if (m) resolve(Number(m[1]))
      })
    })
    running = await startCli(['--upstream', `http://127.0.0.1:${port}/mcp`])
    await until(
      () => expect(running?.logs().some((l) => l.event === 'tools_loaded')).toBe(true),
      30_000,
    )
    expect(running.logs().find((l) => l.event === 'upstream_ready')).toMatchObject({
      era: 'stateless',
    })
    const call = await session(running.url)
    const echo = await call(callBody(1, 'echo', { message: 'to 2026' }))
    expect(echo.body?.result).toMatchObject({ content: [{ text: 'echo:{"message":"to 2026"}' }] })
    const refused = await call(callBody(2, 'echo', { message: 'x', injected: 1 }))
    expect(refused.body?.result).toMatchObject({ isError: true })
    const calls = recorded(file).filter((m) => m.method === 'tools/call')
    expect(calls).toHaveLength(1)
    expect(calls[0]?.params).toMatchObject({ arguments: { message: 'to 2026' } })
  })
})
