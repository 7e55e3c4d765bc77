// Test helper: spawns test/fixtures/stdio-server.mjs with `node` and speaks raw bytes to it.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const FIXTURE = fileURLToPath(new URL('../fixtures/stdio-server.mjs', import.meta.url))

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages as the wire gives them
export type Msg = any

export class StdioChild {
  readonly proc: ChildProcessWithoutNullStreams
  readonly messages: Msg[] = []
  /** Every stdout byte, as text, for the no-echo checks (bounded: tests keep it small). */
  raw = ''
  stderr = ''
  readonly exited: Promise<number | null>
  #parts: Buffer[] = []
  #waiters: (() => void)[] = []
  #keepRaw: boolean
  #closed = false

  private constructor(args: string[], keepRaw: boolean) {
    this.#keepRaw = keepRaw
    this.proc = spawn(process.execPath, [FIXTURE, ...args], { stdio: 'pipe' })
    // After the server ends its input, writes fail with EPIPE: expected, not a test failure.
    this.proc.stdin.on('error', () => {})
    this.proc.stderr.on('data', (d: Buffer) => {
      this.stderr += d.toString()
      this.wake()
    })
    this.proc.stdout.on('data', (chunk: Buffer) => this.ondata(chunk))
    // 'close' (not 'exit'): every stdout byte has been read by then.
    this.exited = new Promise((resolve) =>
      this.proc.on('close', (code) => {
        this.#closed = true
        resolve(code)
        this.wake()
      }),
    )
  }

  static async start(args: string[], { keepRaw = true } = {}): Promise<StdioChild> {
    const child = new StdioChild(args, keepRaw)
    await child.until(() => child.stderr.includes('ready'))
    return child
  }

  write(data: string | Uint8Array): void {
    this.proc.stdin.write(data)
  }

  send(message: object): void {
    this.write(`${JSON.stringify(message)}\n`)
  }

  call(id: number, name: string, args: object): void {
    this.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })
  }

  /** Writes `head`, then `fill` bytes of `x`, then `tail`, in 1 MiB chunks, honouring drain. */
  async writeLarge(head: string, fill: number, tail: string): Promise<void> {
    const stdin = this.proc.stdin
    const block = Buffer.alloc(1024 * 1024, 0x78)
    const put = (b: Uint8Array) =>
      new Promise<void>((resolve) => {
        if (stdin.destroyed || !stdin.writable) return resolve()
        if (stdin.write(b)) return resolve()
        const done = () => {
          stdin.off('drain', done)
          stdin.off('close', done)
          resolve()
        }
        stdin.on('drain', done)
        stdin.on('close', done)
      })
    await put(Buffer.from(head))
    let left = fill
    while (left > 0 && !stdin.destroyed) {
      const n = Math.min(left, block.length)
      await put(n === block.length ? block : block.subarray(0, n))
      left -= n
    }
    await put(Buffer.from(tail))
  }

  /** Resolves with the first message (seen or to come) that matches. */
  async waitFor(match: (m: Msg) => boolean): Promise<Msg> {
    let found: Msg
    await this.until(() => (found = this.messages.find(match)) !== undefined)
    return found
  }

  response(id: number): Promise<Msg> {
    return this.waitFor((m) => m.id === id && (m.result !== undefined || m.error !== undefined))
  }

  /** Calls the fixture's `stats` tool: how often echo ran, longest serialization since last. */
  async stats(id: number): Promise<{ echoCalls: number; longestSerialized: number }> {
    this.call(id, 'stats', {})
    const r = await this.response(id)
    return JSON.parse(r.result.content[0].text)
  }

  /** What the fixture's `--log-errors` wrote for each `server.onerror` call, in order. */
  onerrors(): {
    name: string
    code?: string
    jsonRpcCode?: number
    limit?: number
    message: string
    repeated?: number
  }[] {
    return this.stderr
      .split('\n')
      .filter((line) => line.startsWith('{"onerror":'))
      .map((line) => JSON.parse(line).onerror)
  }

  /** Refusals of the transport itself (a `data.code` it names), whatever their id. */
  refusals(): Msg[] {
    return this.messages.filter((m) => typeof m.error?.data?.code === 'string')
  }

  /** Messages that are refusals of the transport itself (`id: null`). */
  nullErrors(): Msg[] {
    return this.messages.filter((m) => m.id === null && m.error !== undefined)
  }

  async stop(): Promise<void> {
    if (!this.#closed) this.proc.kill()
    await this.exited
  }

  private until(done: () => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (done()) return resolve()
        if (this.#closed) {
          return reject(new Error(`child exited; stderr: ${this.stderr.slice(0, 2000)}`))
        }
        this.#waiters.push(check)
      }
      check()
    })
  }

  private wake(): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const w of waiters) w()
  }

  private ondata(chunk: Buffer): void {
    if (this.#keepRaw && this.raw.length < 1_000_000) this.raw += chunk.toString('latin1')
    let start = 0
    for (;;) {
      const nl = chunk.indexOf(0x0a, start)
      if (nl === -1) break
      this.#parts.push(chunk.subarray(start, nl))
      const line = Buffer.concat(this.#parts)
      this.#parts = []
      this.messages.push(JSON.parse(line.toString('utf8')))
      start = nl + 1
    }
    if (start < chunk.length) this.#parts.push(chunk.subarray(start))
    this.wake()
  }
}
