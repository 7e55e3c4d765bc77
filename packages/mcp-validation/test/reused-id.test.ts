// A request id reused while the first request is in flight must not let the SDK's own
// tools/list out unrewritten. Through a real stdio child process (the SDK's
// StdioServerTransport reads both lines of one write in one turn, so the second request
// arrives while the first is in flight) and the in-memory pair, with raw lines.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { INITIALIZED_NOTIFICATION, initializeRequest } from '@tollgate/test-kit/mcp-initialize'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REUSED_ID_ERROR } from '../src/index.js'
import { fixtureRegistry, type Json } from './helpers/raw-clients.js'
import { SDK_DERIVED_DIALECT } from './helpers/sdk-line.js'

const CHILD = fileURLToPath(new URL('./fixtures/stdio-child.ts', import.meta.url))
const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url))
const LIST = { jsonrpc: '2.0', id: 7, method: 'tools/list' }
const CALL_NOPE = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'nope' } }
const CALL_OK = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'system.ping', arguments: {} },
}

/** A stdio child driven with raw lines; collects every stdout line. */
class Child {
  readonly lines: Json[] = []
  readonly #child: ChildProcess
  readonly #dir = mkdtempSync(join(tmpdir(), 'tollgate-reused-'))
  readonly #sentinel = join(this.#dir, 'calls.jsonl')
  #buffer = ''
  #waiters: (() => void)[] = []

  constructor(mode: 'decorated' | 'undecorated') {
    writeFileSync(this.#sentinel, '')
    this.#child = spawn(process.execPath, ['--import', 'tsx', CHILD, mode, this.#sentinel], {
      cwd: PACKAGE_DIR,
      stdio: ['pipe', 'pipe', 'ignore'],
    })
    this.#child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.#buffer += chunk
      for (let nl = this.#buffer.indexOf('\n'); nl !== -1; nl = this.#buffer.indexOf('\n')) {
        this.lines.push(JSON.parse(this.#buffer.slice(0, nl)) as Json)
        this.#buffer = this.#buffer.slice(nl + 1)
      }
      for (const wake of this.#waiters.splice(0)) wake()
    })
  }

  /** Writes the messages in ONE write and waits (`ms`, 10 s by default) for `count` lines with `id`. */
  async send(messages: Json[], id: unknown, count: number, ms = 10_000): Promise<Json[]> {
    const mark = this.lines.length
    this.#child.stdin?.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''))
    const deadline = Date.now() + ms
    const found = () => this.lines.slice(mark).filter((l) => l.id === id)
    while (found().length < count && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve)
        setTimeout(resolve, 250)
      })
    }
    return found()
  }

  /** The tools whose handler ran so far (the child writes each before its response). */
  handled(): string[] {
    const lines = readFileSync(this.#sentinel, 'utf8').split('\n').filter(Boolean)
    return lines.map((l) => (JSON.parse(l) as { tool: string }).tool)
  }

  async initialize(): Promise<void> {
    // A generous deadline: on a loaded machine the child's start (tsx, the SDK, Ajv) is slow,
    // and a session that is not initialized answers nothing the tests ask.
    const [answer] = await this.send([initializeRequest()], 0, 1, 60_000)
    if (answer === undefined) throw new Error('the stdio child did not answer initialize')
    this.#child.stdin?.write(`${JSON.stringify(INITIALIZED_NOTIFICATION)}\n`)
  }

  async close(): Promise<void> {
    this.#child.stdin?.end()
    if (this.#child.exitCode === null) {
      await new Promise((resolve) => {
        this.#child.once('exit', resolve)
        setTimeout(() => this.#child.kill(), 2000)
      })
    }
    rmSync(this.#dir, { recursive: true, force: true })
  }
}

// A request that names an in-flight id in `params.requestId` without being a cancellation: it
// must not free that id (only notifications/cancelled does), or the tools/call after it would
// be taken under the id of the tools/list still in flight.
const PING_NAMING_7 = { jsonrpc: '2.0', id: 8, method: 'ping', params: { requestId: 7 } }

const names = (list: Json) => ((list.result as { tools: Json[] }).tools ?? []).map((t) => t.name)

describe('withInputValidation with a reused request id (stdio child)', () => {
  let on: Child
  let off: Child
  beforeAll(async () => {
    on = new Child('decorated')
    off = new Child('undecorated')
    await Promise.all([on.initialize(), off.initialize()])
  }, 90_000)
  afterAll(async () => {
    await Promise.all([on?.close(), off?.close()])
  })

  it('refuses a tools/call reusing the id of a tools/list in flight, and the list is still rewritten', async () => {
    const answers = await on.send([LIST, CALL_NOPE], 7, 2)
    expect(answers).toHaveLength(2)
    const list = answers.find((a) => 'result' in a) as Json
    expect(names(list)).toEqual(['notes.batch', 'notes.get', 'notes.search', 'system.ping'])
    for (const tool of (list.result as { tools: Json[] }).tools) {
      expect(tool.inputSchema).toEqual(fixtureRegistry().bundled(tool.name as string))
    }
    expect(answers.find((a) => 'error' in a)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: REUSED_ID_ERROR,
    })
  })

  it('refuses a tools/list reusing the id of a tools/call in flight', async () => {
    const answers = await on.send([CALL_OK, LIST], 7, 2)
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 7, error: REUSED_ID_ERROR })
    expect(
      answers.filter((a) => 'result' in a).map((a) => 'content' in (a.result as Json)),
    ).toEqual([true])
  })

  it('takes the id again once its request is answered', async () => {
    const [first] = await on.send([LIST], 7, 1)
    const [second] = await on.send([LIST], 7, 1)
    expect(names(first as Json)).toEqual(names(second as Json))
    expect(names(second as Json)).not.toContain('notes.unpublished')
  })

  it('keeps the id of a tools/list in flight when a ping names it as params.requestId', async () => {
    const before = on.handled().length
    const answers = await on.send([LIST, PING_NAMING_7, CALL_OK], 7, 2)
    expect(answers).toHaveLength(2)
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 7, error: REUSED_ID_ERROR })
    const list = answers.find((a) => 'result' in a) as Json
    expect(names(list)).toEqual(['notes.batch', 'notes.get', 'notes.search', 'system.ping'])
    expect(on.handled().slice(before)).toEqual([])
  })

  it('frees a string id when its request is cancelled', async () => {
    const list = { ...LIST, id: 's-7' }
    const cancel = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 's-7' },
    }
    const before = on.handled().length
    // The list and its cancellation in one write; a ping round trip after it, so the SDK has
    // taken the cancellation before the id is used again.
    on.send([list, cancel], 's-7', 0)
    await on.send([{ jsonrpc: '2.0', id: 'barrier', method: 'ping' }], 'barrier', 1)
    const [answer] = await on.send([{ ...CALL_OK, id: 's-7' }], 's-7', 1)
    expect('content' in ((answer as Json).result as Json)).toBe(true)
    expect(on.lines.filter((l) => l.id === 's-7')).toEqual([answer])
    expect(on.handled().slice(before)).toEqual(['system.ping'])
  })

  // The SDK takes a cancellation a microtask after it is delivered and aborts whatever request
  // holds the id by then. Were the decorator to free a cancelled id at once, a tools/call
  // written after the cancellation would be delivered, take the id in the SDK, be aborted in
  // the list's place, and the list would answer under the tools/call's id unrewritten, naming
  // the unpublished tool. The id is freed on the next turn, so the tools/call is refused.
  it('keeps a tools/list cancelled in the same write from going out unrewritten under the id of a tools/call after it', async () => {
    const list = { ...LIST, id: 'c-7' }
    const cancel = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'c-7' },
    }
    const before = on.handled().length
    const answers = await on.send([list, cancel, { ...CALL_OK, id: 'c-7' }], 'c-7', 1)
    await on.send([{ jsonrpc: '2.0', id: 'barrier-c', method: 'ping' }], 'barrier-c', 1)
    expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 'c-7', error: REUSED_ID_ERROR })
    const lists = on.lines.filter((l) => l.id === 'c-7' && 'tools' in ((l.result ?? {}) as Json))
    for (const l of lists) expect(names(l)).not.toContain('notes.unpublished')
    expect(on.handled().slice(before)).toEqual([])
  })

  it('lets the unrewritten list out past a ping naming its id when the decorator is removed', async () => {
    const answers = await off.send([LIST, PING_NAMING_7, CALL_OK], 7, 2)
    const list = answers.find((a) => 'result' in a && 'tools' in (a.result as Json)) as Json
    expect(names(list)).toContain('notes.unpublished')
    expect(off.handled()).toContain('system.ping')
  })

  it('lets the SDK list out, naming the unpublished tool with derived schemas, when the decorator is removed', async () => {
    const answers = await off.send([LIST, CALL_NOPE], 7, 2)
    const list = answers.find((a) => 'result' in a && 'tools' in (a.result as Json)) as Json
    expect(names(list)).toContain('notes.unpublished')
    const schema = (list.result as { tools: Json[] }).tools[0]?.inputSchema as Json
    expect(schema.$schema).toBe(SDK_DERIVED_DIALECT)
    expect('unevaluatedProperties' in schema).toBe(false)
  })
})

// The 2026-07-28 shape on the same stream: no initialize, the protocol version and client
// capabilities in each request's `_meta`. The id table does not depend on a session.
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
}
const modern = (m: Json): Json => ({ ...m, params: { ...((m.params as Json) ?? {}), _meta: META } })

describe('withInputValidation with a reused request id on 2026-07-28 requests (stdio child, no initialize)', () => {
  let on: Child
  let off: Child
  beforeAll(async () => {
    on = new Child('decorated')
    off = new Child('undecorated')
    // No initialize: the first answer (to a request with a fresh id) says the child is up.
    const up = (c: Child) =>
      c.send([modern({ jsonrpc: '2.0', id: 'up', method: 'tools/list' })], 'up', 1, 60_000)
    await Promise.all([up(on), up(off)])
  }, 90_000)
  afterAll(async () => {
    await Promise.all([on?.close(), off?.close()])
  })

  it('refuses a tools/call reusing the id of a 2026 tools/list in flight, and lists only published tools', async () => {
    const before = on.handled().length
    const answers = await on.send([modern(LIST), modern(CALL_OK)], 7, 2)
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 7, error: REUSED_ID_ERROR })
    const list = answers.find((a) => 'result' in a) as Json
    expect(names(list)).toEqual(['notes.batch', 'notes.get', 'notes.search', 'system.ping'])
    expect(on.handled().slice(before)).toEqual([])
  })

  it('lets the SDK list and the tools/call under one id both through when the decorator is removed', async () => {
    const answers = await off.send([modern(LIST), modern(CALL_OK)], 7, 2)
    const list = answers.find((a) => 'result' in a && 'tools' in (a.result as Json)) as Json
    expect(names(list)).toContain('notes.unpublished')
    expect(off.handled()).toContain('system.ping')
  })
})
