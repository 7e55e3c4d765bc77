// A raw JSON-RPC client: plain fetch with the MCP headers, and a spawned stdio child written to
// line by line. It ignores the published schemas, so it can send what a real attacker sends.
import { type ChildProcess, spawn } from 'node:child_process'
import { httpPost } from '@tollgate/test-kit/http-client'
import {
  INITIALIZED_NOTIFICATION,
  initializeRequest,
  MCP_POST_HEADERS,
  PROTOCOL_VERSION,
} from '@tollgate/test-kit/mcp-initialize'
import { AuditStream, MAIN, writeConfig } from './server.js'

export interface RawResponse {
  readonly status: number
  readonly text: string
  readonly headers: Headers
}

/** POSTs one body (an object, or raw text) to a route. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...MCP_POST_HEADERS, ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  })
  return { status: res.status, text: await res.text(), headers: res.headers }
}

/**
 * POSTs one JSON body through `node:http`, which (unlike `fetch`) sends the `Host` header it is
 * given: what a DNS-rebinding page's browser sends to a loopback server.
 */
export async function postWithHost(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const { port, pathname, search } = new URL(url)
  const payload = Buffer.from(JSON.stringify(body))
  const res = await httpPost(Number(port), `${pathname}${search}`, payload, {
    ...MCP_POST_HEADERS,
    ...headers,
  })
  return { status: res.status, text: res.body }
}

/** The `Authorization` header of a bearer token; none at all for an anonymous caller. */
const authorization = (token: string | undefined): Record<string, string> =>
  token === undefined ? {} : { authorization: `Bearer ${token}` }

/**
 * One initialized Streamable HTTP session on one route, as one bearer credential, or with no
 * `Authorization` header at all when `token` is `undefined` (an anonymous caller).
 */
export class RawSession {
  private constructor(
    readonly url: string,
    readonly token: string | undefined,
    readonly sessionId: string,
  ) {}

  static async open(url: string, token: string | undefined): Promise<RawSession> {
    const init = await post(url, initializeRequest(), authorization(token))
    const sid = init.headers.get('mcp-session-id')
    if (init.status !== 200 || sid === null)
      throw new Error(`initialize failed: ${init.status} ${init.text}`)
    const session = new RawSession(url, token, sid)
    await session.post(INITIALIZED_NOTIFICATION)
    return session
  }

  post(body: unknown): Promise<RawResponse> {
    return post(this.url, body, {
      ...authorization(this.token),
      'mcp-session-id': this.sessionId,
      'mcp-protocol-version': PROTOCOL_VERSION,
    })
  }

  /** `tools/call` with a fixed id (so two answers can be compared byte for byte). */
  async call(name: string, args: unknown, id = 7): Promise<RawResponse> {
    return this.post({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    })
  }
}

/** The tool result of a `tools/call` answer. */
export function toolResult(res: RawResponse): {
  isError?: boolean
  content: { type: string; text: string }[]
} {
  const body = JSON.parse(res.text) as { result?: unknown; error?: unknown }
  if (body.result === undefined) throw new Error(`not a result: ${res.text.slice(0, 300)}`)
  return body.result as { isError?: boolean; content: { type: string; text: string }[] }
}

/** The parsed JSON text of a tool result's first content item. */
export function resultJson(res: RawResponse): unknown {
  return JSON.parse(toolResult(res).content[0]!.text)
}

/** A stdio server child driven with raw lines. */
export class RawStdio {
  readonly child: ChildProcess
  readonly audit: AuditStream
  readonly lines: string[] = []
  #buffer = ''
  #waiters: { pred: (line: string) => boolean; resolve: (line: string) => void }[] = []
  readonly exited: Promise<number | null>

  constructor(args: string[] = []) {
    this.child = spawn(process.execPath, [MAIN, '--stdio', '--config', writeConfig(), ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.audit = new AuditStream(this.child)
    this.exited = new Promise((resolve) => this.child.once('exit', resolve))
    this.child.stdin!.on('error', () => {})
    this.child.stdout!.setEncoding('utf8')
    this.child.stdout!.on('data', (chunk: string) => {
      this.#buffer += chunk
      let i = this.#buffer.indexOf('\n')
      while (i >= 0) {
        const line = this.#buffer.slice(0, i)
        this.#buffer = this.#buffer.slice(i + 1)
        this.lines.push(line)
        this.#waiters = this.#waiters.filter((w) => {
          if (!w.pred(line)) return true
          w.resolve(line)
          return false
        })
        i = this.#buffer.indexOf('\n')
      }
    })
  }

  write(raw: string | Buffer): void {
    this.child.stdin!.write(raw)
  }

  /** Writes one request line and resolves with the raw answer line carrying its id. */
  request(message: { id: number | string } & Record<string, unknown>): Promise<string> {
    const answer = this.waitForId(message.id)
    this.write(`${JSON.stringify(message)}\n`)
    return answer
  }

  waitForId(id: number | string): Promise<string> {
    return this.waitFor((line: string) => {
      try {
        return (JSON.parse(line) as { id?: unknown }).id === id
      } catch {
        return false
      }
    })
  }

  /** Resolves with the first stdout line (already read or still to come) matching `pred`. */
  waitFor(pred: (line: string) => boolean): Promise<string> {
    const found = this.lines.find(pred)
    if (found) return Promise.resolve(found)
    return new Promise((resolve) => this.#waiters.push({ pred, resolve }))
  }

  async initialize(): Promise<void> {
    await this.request(initializeRequest('init'))
    this.write(`${JSON.stringify(INITIALIZED_NOTIFICATION)}\n`)
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      this.child.kill('SIGTERM')
      await this.exited
    }
  }
}
