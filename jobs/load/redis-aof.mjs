// A private redis-server for the fleet row with persistence on (AOF, fsync every second), as
// docs/deploy.md asks of a production Redis: `kill()` ends it with SIGKILL and `start()` brings
// it back on the same port from its own append-only file, so the outage is a Redis that stopped
// and came back with its data. `wipe()` deletes that file (the next start is an empty Redis).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../tools/test-kit/src/redis-server.mjs'

/** Starts it; resolves `{ url, kill(), start(), wipe(), stop() }`. Loopback only. */
export async function startPersistentRedis() {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-fleet-redis-'))
  let child
  const start = () =>
    new Promise((resolve, reject) => {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '']
      args.push('--appendonly', 'yes', '--appendfsync', 'everysec', '--dir', dir)
      child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
      const timer = setTimeout(() => reject(new Error('redis-server did not start')), 20_000)
      child.stdout.on('data', (chunk) => {
        if (chunk.toString().includes('Ready to accept connections')) {
          clearTimeout(timer)
          resolve()
        }
      })
      child.once('exit', () => {
        clearTimeout(timer)
        reject(new Error('redis-server exited'))
      })
    })
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
    start,
    kill,
    wipe: () => rmSync(join(dir, 'appendonlydir'), { recursive: true, force: true }),
    async stop() {
      await kill()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
