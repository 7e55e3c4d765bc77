// Test support (not a test file): a private redis-server on a fixed loopback port that a test
// can kill and start again on the same port, so the servers pointed at it see an outage and
// then the same URL answering again (with nothing in it: no persistence).
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@tollgate/test-kit/redis-server'

export interface RestartableRedis {
  readonly url: string
  /** Kills the server (SIGKILL): clients see the connection drop. */
  kill(): Promise<void>
  /** Starts a fresh, empty server on the same port. */
  start(): Promise<void>
  /** Kills it and removes its folder; idempotent. */
  stop(): Promise<void>
}

export async function startRestartableRedis(): Promise<RestartableRedis> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-fleet-redis-'))
  let child: ChildProcess | undefined
  const start = async () => {
    const spawned = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    child = spawned
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('redis-server did not start')), 10_000)
      spawned.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('Ready to accept connections')) {
          clearTimeout(timer)
          resolve(undefined)
        }
      })
      spawned.once('exit', () => reject(new Error('redis-server exited')))
    })
  }
  const kill = async () => {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill('SIGKILL')
    await exited
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    stop: async () => {
      await kill()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
