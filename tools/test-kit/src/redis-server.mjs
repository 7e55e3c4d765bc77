// Starts a private redis-server on 127.0.0.1 and a random port for a test file, so the Redis
// suites never silently skip where the binary exists, and never share keys with another file.
// Plain JavaScript (types in the .d.mts beside it) so the benchmarks and fault runs start
// their Redis the same way.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Whether a `redis-server` binary is on PATH (checked once, when this module loads). */
export const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick, then released).
 *
 * @returns {Promise<number>}
 */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const address = s.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      s.close(() => resolve(port))
    })
  })
}

/**
 * Spawns `redis-server` with no persistence (`--save ''`, `--appendonly no`) in a temporary
 * folder, resolving once it accepts connections; rejects after 10 s or if it exits first.
 *
 * @returns {Promise<import('./redis-server.d.mts').RedisProcess>}
 */
export async function startRedis() {
  const redis = await startRestartableRedis()
  return { url: redis.url, stop: redis.stop }
}

/**
 * Like {@link startRedis}, on a port that stays the server's: `kill()` ends it (SIGKILL, so
 * clients see the connection drop) and `start()` brings a fresh, empty one up on the same port,
 * so the clients pointed at it see an outage and then the same URL answering again.
 * With `appendOnly: true`, persistence is on as a production Redis has it (AOF, fsync every
 * second): `start()` then brings it back from its own append-only file, with its data, and
 * `wipe()` deletes that file so the next start is an empty Redis.
 *
 * @param {{ appendOnly?: boolean }} [options]
 * @returns {Promise<import('./redis-server.d.mts').RestartableRedis>}
 */
export async function startRestartableRedis(options = {}) {
  const appendOnly = options.appendOnly === true
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-redis-'))
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let child
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
        appendOnly ? 'yes' : 'no',
        ...(appendOnly ? ['--appendfsync', 'everysec'] : []),
        '--dir',
        dir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    child = spawned
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('redis-server did not start')), 10_000)
      spawned.stdout?.on('data', (chunk) => {
        if (chunk.toString().includes('Ready to accept connections')) {
          clearTimeout(timer)
          resolve(undefined)
        }
      })
      spawned.once('exit', () => {
        clearTimeout(timer)
        reject(new Error('redis-server exited'))
      })
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
  let stopped = false
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    wipe: () => rmSync(join(dir, 'appendonlydir'), { recursive: true, force: true }),
    async stop() {
      if (stopped) return
      stopped = true
      await kill()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
