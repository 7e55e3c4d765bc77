// The built server (dist/main.js) as a real child, started on a port another socket holds:
// the one line it writes names the cause, the port and the flag to change it.
import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:net'
import { describe, expect, it } from 'vitest'
import { MAIN, writeConfig } from './helpers/server.js'

/** Holds a port on 127.0.0.1 until closed. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const address = server.address()
  if (address === null || typeof address !== 'object') throw new Error('no address')
  return { port: address.port, server }
}

function runServer(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c
  })
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })))
}

describe('describeStartError (dist/main.js)', () => {
  it('names EADDRINUSE, the port and --port when the port is taken, and exits 1', async () => {
    const held = await holdPort()
    try {
      const run = await runServer(['--port', String(held.port), '--config', writeConfig()])
      expect(run.code).toBe(1)
      const last = run.stderr.trim().split('\n').pop() ?? ''
      expect(last).toContain('tollgate-mcp-server:')
      expect(last).toContain('EADDRINUSE')
      expect(last).toContain(String(held.port))
      expect(last).toContain('--port')
      expect(last).not.toContain('start-up failed')
    } finally {
      await new Promise<void>((resolve) => held.server.close(() => resolve()))
    }
  })

  it('starts on the same port once it is free (the refusal came from the port, not the config)', async () => {
    const held = await holdPort()
    await new Promise<void>((resolve) => held.server.close(() => resolve()))
    const child = spawn(
      process.execPath,
      [MAIN, '--port', String(held.port), '--config', writeConfig()],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    )
    let stderr = ''
    const listening = new Promise<void>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c
        if (stderr.includes('"event":"listening"')) resolve()
      })
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)))
    })
    try {
      await listening
      expect(stderr).not.toContain('EADDRINUSE')
    } finally {
      child.kill('SIGTERM')
    }
  })
})
