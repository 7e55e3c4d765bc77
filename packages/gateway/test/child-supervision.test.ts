import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  alive,
  callBody,
  MISBEHAVING,
  modern,
  type RunningCli,
  recorded,
  recordFile,
  session,
  startCliPerTest,
  until,
} from './fixtures/run-gateway.js'

const startCli = startCliPerTest()
let running: RunningCli | undefined

describe('childUpstream (through tollgate-gateway)', () => {
  it('answers every call in flight with ERR_UPSTREAM_EXITED when the child exits, then restarts it', async () => {
    running = await startCli(['--restart-backoff-ms', '50', '--', process.execPath, MISBEHAVING])
    const call = await session(running.url)
    const [hanging, crashing] = await Promise.all([
      call(callBody(1, 'hang', {})),
      call(callBody(2, 'crash', {})),
    ])
    for (const answer of [hanging, crashing]) {
      expect(answer.status).toBe(200)
      expect(answer.body?.error).toMatchObject({
        code: -32002,
        data: { code: 'ERR_UPSTREAM_EXITED' },
      })
    }
    // The restarted child serves the next call.
    await until(async () => {
      const again = await call(callBody(3, 'echo', { message: 'after' }))
      expect(again.body?.result).toMatchObject({
        content: [{ type: 'text', text: 'echo:{"message":"after"}' }],
      })
    })
    expect(running.logs().filter((l) => l.event === 'child_started')).toHaveLength(2)
  })

  it('answers ERR_UPSTREAM_TIMEOUT to a call the child never answers', async () => {
    running = await startCli(['--call-timeout-ms', '300', '--', process.execPath, MISBEHAVING])
    const call = await session(running.url)
    const answer = await call(callBody(1, 'hang', {}))
    expect(answer.body?.error).toMatchObject({
      code: -32003,
      data: { code: 'ERR_UPSTREAM_TIMEOUT', limit: 300 },
    })
  })

  it('stays up after a spawn failure and answers ERR_UPSTREAM_UNAVAILABLE', async () => {
    running = await startCli(['--breaker-crashes', '1', '--', '/nonexistent/upstream-command'])
    const health = await fetch(`http://127.0.0.1:${running.port}/healthz`)
    expect(health.status).toBe(200)
    const ready = await fetch(`http://127.0.0.1:${running.port}/readyz`)
    expect(ready.status).toBe(503)
    const discover = await modern(running.url, 1, 'server/discover')
    expect(discover.body?.error).toMatchObject({
      code: -32001,
      data: { code: 'ERR_UPSTREAM_UNAVAILABLE' },
    })
    expect(
      running.logs().some((l) => l.event === 'child_spawn_failed' && l.code === 'ENOENT'),
    ).toBe(true)
  })

  it('opens the breaker after --breaker-crashes crashes without a stable uptime', async () => {
    running = await startCli([
      '--restart-backoff-ms',
      '20',
      '--breaker-crashes',
      '3',
      '--',
      process.execPath,
      MISBEHAVING,
      'crash-on-start',
    ])
    await until(() =>
      expect(running?.logs().some((l) => l.event === 'child_breaker_open')).toBe(true),
    )
    expect(running.logs().filter((l) => l.event === 'child_started')).toHaveLength(3)
    const delays = running
      .logs()
      .filter((l) => l.event === 'child_restart_scheduled')
      .map((l) => l.delayMs)
    expect(delays).toEqual([20, 40])
  })

  it('stops a child that writes a line past --max-line-bytes and answers ERR_UPSTREAM_LINE_TOO_LARGE', async () => {
    running = await startCli(['--max-line-bytes', '65536', '--', process.execPath, MISBEHAVING])
    const call = await session(running.url)
    // 1 GiB announced; the gateway reads no more than the cap of it.
    const answer = await call(callBody(1, 'huge-line', { bytes: 1024 * 1024 * 1024 }))
    expect(answer.body?.error).toMatchObject({
      code: -32005,
      data: { code: 'ERR_UPSTREAM_LINE_TOO_LARGE' },
    })
    const rss = (await fetch(`http://127.0.0.1:${running.port}/healthz`)).status
    expect(rss).toBe(200)
  })

  it('takes the child and its process group down on SIGTERM', async () => {
    const file = recordFile()
    running = await startCli(['--', process.execPath, MISBEHAVING], { RECORD_FILE: file })
    const pid = Number(readFileSync(`${file}.pid`, 'utf8'))
    expect(alive(pid)).toBe(true)
    expect(await running.stop('SIGTERM')).toBe(0)
    await until(() => expect(alive(pid)).toBe(false))
  })

  it('leaves no child behind when the gateway is killed: the child sees end of input', async () => {
    const file = recordFile()
    running = await startCli(['--', process.execPath, MISBEHAVING], { RECORD_FILE: file })
    const pid = Number(readFileSync(`${file}.pid`, 'utf8'))
    await running.stop('SIGKILL')
    await until(() => expect(alive(pid)).toBe(false))
  })

  it('refuses past --max-concurrent-calls with ERR_UPSTREAM_BUSY, and the refused call never reaches the child', async () => {
    const file = recordFile()
    running = await startCli(
      [
        '--max-concurrent-calls',
        '1',
        '--call-timeout-ms',
        '60000',
        '--',
        process.execPath,
        MISBEHAVING,
      ],
      {
        RECORD_FILE: file,
      },
    )
    const call = await session(running.url)
    const first = call(callBody(1, 'hang', {})).catch(() => undefined)
    await until(() =>
      expect(recorded(file).some((m) => (m.params as { name?: string })?.name === 'hang')).toBe(
        true,
      ),
    )
    const second = await call(callBody(2, 'echo', { message: 'second' }))
    expect(second.body?.error).toMatchObject({
      code: -32004,
      data: { code: 'ERR_UPSTREAM_BUSY', limit: 1 },
    })
    expect(recorded(file).some((m) => (m.params as { name?: string })?.name === 'echo')).toBe(false)
    await running.stop('SIGKILL')
    await first
  })
})
