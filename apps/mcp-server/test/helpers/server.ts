// Live-test harness: spawns the real built server (dist/main.js) as a child process and reads
// its audit stream (JSON lines on stderr). Nothing in-process, nothing private assigned.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url))

/** Two credentials: alice holds every capability, bob cannot export or administer. */
export const ALICE = 'alice-token-0123456789abcdef'
export const BOB = 'bob-token-0123456789abcdef'

/** Writes the test config (alice and bob) to a fresh temp file; `extra` adds top-level fields. */
export function writeConfig(extra: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-mcp-server-'))
  const path = join(dir, 'config.json')
  writeFileSync(
    path,
    JSON.stringify({
      credentials: [
        {
          id: 'alice',
          token: ALICE,
          capabilities: ['read', 'documents', 'notes', 'export', 'admin'],
        },
        { id: 'bob', token: BOB, capabilities: ['read', 'documents', 'notes'] },
      ],
      ...extra,
    }),
  )
  return path
}

export type AuditEvent = Record<string, unknown> & { event?: string }

/** Collects the JSON lines of a child's stderr. */
export class AuditStream {
  readonly events: AuditEvent[] = []
  readonly raw: string[] = []
  #buffer = ''
  #waiters: { pred: (e: AuditEvent) => boolean; resolve: (e: AuditEvent) => void }[] = []

  constructor(child: ChildProcess) {
    child.stderr!.setEncoding('utf8')
    child.stderr!.on('data', (chunk: string) => {
      this.#buffer += chunk
      let i = this.#buffer.indexOf('\n')
      while (i >= 0) {
        const line = this.#buffer.slice(0, i)
        this.#buffer = this.#buffer.slice(i + 1)
        this.raw.push(line)
        try {
          const event = JSON.parse(line) as AuditEvent
          this.events.push(event)
          this.#waiters = this.#waiters.filter((w) => {
            if (!w.pred(event)) return true
            w.resolve(event)
            return false
          })
        } catch {
          // a warning banner, not an audit line
        }
        i = this.#buffer.indexOf('\n')
      }
    })
  }

  waitFor(pred: (e: AuditEvent) => boolean): Promise<AuditEvent> {
    const found = this.events.find(pred)
    if (found) return Promise.resolve(found)
    return new Promise((resolve) => this.#waiters.push({ pred, resolve }))
  }

  named(event: string): AuditEvent[] {
    return this.events.filter((e) => e.event === event)
  }
}

export interface LiveServer {
  readonly port: number
  readonly audit: AuditStream
  readonly child: ChildProcess
  url(path: string): string
  stop(): Promise<void>
}

/** Starts `node dist/main.js --port 0` with the test config (unless `config: false`). */
export async function startServer(args: string[] = [], config = true): Promise<LiveServer> {
  const argv = [MAIN, '--port', '0', ...(config ? ['--config', writeConfig()] : []), ...args]
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] })
  const audit = new AuditStream(child)
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const listening = await Promise.race([
    audit.waitFor((e) => e.event === 'listening'),
    exited.then((code) => {
      throw new Error(`server exited with ${code}: ${audit.raw.join('\n')}`)
    }),
  ])
  const port = listening.port as number
  return {
    port,
    audit,
    child,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await exited
      }
    },
  }
}
