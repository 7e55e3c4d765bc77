import type { Readable, Writable } from 'node:stream'
import {
  createRepeatWindow,
  type RefusalHook,
  type RepeatWindow,
  reportRefusal,
} from '@tollgate/json-budget'
import { JSON_RPC_ERRORS, jsonRpcErrorFor } from './json-rpc.js'
import { isJsonRpcMessage } from './json-rpc-message.js'
import { MAX_RECOVERED_ID_CHARS } from './line-id.js'
import { BoundedLineReader, type LineEvent } from './line-reader.js'
import type { JsonRpcMessage, McpTransport, MessageExtra, RequestIdLike } from './mcp-types.js'
import {
  type BoundedStdioOptions,
  type ResolvedBoundedStdioOptions,
  resolveBoundedStdioOptions,
} from './stdio-options.js'
import { INVALID_MESSAGE_CODE, StdioRefusalError, stdioRefusalEvent } from './stdio-refusal.js'
import { isJsonRpcRequest, type JsonRpcErrorObject } from './transport-decorator.js'

/**
 * A stdio server transport for either MCP SDK line (`@modelcontextprotocol/sdk` 1.32,
 * `@modelcontextprotocol/server` 2.x) with the constructor of their `StdioServerTransport`
 * (`new BoundedStdioServerTransport(stdin?, stdout?, options?)`, the SDK's `maxBufferSize`
 * accepted) that admits each line before it is decoded or parsed:
 * - lines are framed at `\n` from bytes under a cap of `maxLineBytes` (or `maxBufferSize`; 64 MiB
 *   default, line ending included, never raised past 64 MiB), held as a chunk list (linear,
 *   where the SDK's `Buffer.concat` per chunk is quadratic);
 * - each line runs the lexical preflight (UTF-8, grammar, nodes, depth; the JSON-RPC envelope
 *   counts) as its bytes arrive; a refused line is answered with `-32700 Parse error` under the
 *   request id recovered lexically from the bytes read of it (`LineIdScanner`; `id: null`
 *   when none is found), so the client's call fails at once, and the next line is read (the SDK
 *   answers nothing);
 * - valid JSON that is not a JSON-RPC message is answered with `-32600 Invalid Request`, under
 *   its `id` when that is a request's id the scanner would return;
 * - a line past the cap is not buffered. With `oversizedLine: 'end'` (the default) the
 *   complete lines before it are delivered, it is answered with `-32000` (`data.code`
 *   `ERR_LINE_TOO_LARGE`) under the id found in its first `maxLineBytes` bytes, stdin is
 *   destroyed, and the transport closes once every request already delivered has been answered
 *   (the SDK drops the whole connection at 10 MiB and answers nothing). With `'skip'` the rest
 *   of the line is read to its newline and let go, it is answered there (the id sought over the
 *   whole line) and the next line is read;
 * - back-pressure: while stdout has not taken a written line (`write` returned false) stdin is
 *   paused, so a client that does not read its answers stops being read, and the answers
 *   buffered are at most those of one input chunk.
 *
 * Refused lines are also reported to `onerror` as {@link StdioRefusalError}s (a `code`, no
 * caller bytes; an over-cap one says `ReadBuffer exceeded maximum size`, as the SDK's does),
 * after the answer is written, through a repeat window (`refusalWindowMs`, 10 s by default):
 * the first line refused with a code is reported at once, the repeats within the window as one
 * closing report whose `repeated` counts them, so a flood of bad lines costs a few log lines. End of input closes the transport the same way,
 * after pending answers. An empty line is skipped. No SDK module is loaded: the JSON-RPC
 * envelope is checked structurally ({@link isJsonRpcMessage}), as both SDK lines check it.
 */
export class BoundedStdioServerTransport implements McpTransport {
  // No `| undefined`: SDK 2.x declares these without it, and a project with
  // exactOptionalPropertyTypes checks the declared type against the SDK's.
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JsonRpcMessage, extra?: MessageExtra) => void

  readonly #stdin: Readable
  readonly #stdout: Writable
  readonly #reader: BoundedLineReader
  readonly #skipOversized: boolean
  readonly #onRefusal: RefusalHook | undefined
  readonly #reports: RepeatWindow<StdioRefusalError>
  readonly #pending = new Map<RequestIdLike, number>()
  // Resolvers of `send` calls whose line stdout has not taken yet; non-empty means paused.
  #drainWaiters: (() => void)[] = []
  #awaitingDrain = false
  #started = false
  #closed = false
  #inputEnded = false

  constructor(
    stdin: Readable = process.stdin,
    stdout: Writable = process.stdout,
    options: BoundedStdioOptions | ResolvedBoundedStdioOptions = {},
  ) {
    this.#stdin = stdin
    this.#stdout = stdout
    const resolved = resolveBoundedStdioOptions(options)
    this.#reader = new BoundedLineReader(resolved)
    this.#skipOversized = resolved.oversizedLine === 'skip'
    this.#onRefusal = resolved.onRefusal
    this.#reports = createRepeatWindow<StdioRefusalError>(
      (r) =>
        this.deliverReport(
          r.repeated === undefined
            ? r.event
            : StdioRefusalError.repeats(r.event, r.repeated, r.windowMs),
        ),
      { windowMs: resolved.refusalWindowMs },
    )
  }

  /** Starts reading stdin. The SDK's `server.connect()` calls this. */
  async start(): Promise<void> {
    if (this.#started) {
      throw new Error('BoundedStdioServerTransport already started')
    }
    this.#started = true
    this.#stdin.on('data', this.#ondata)
    this.#stdin.on('error', this.#onerror)
    this.#stdin.on('end', this.#onend)
  }

  /** Stops reading, drops any partial line and calls `onclose` (once). */
  async close(): Promise<void> {
    this.detach()
    // Counts still open in the repeat window are reported before onclose.
    this.#reports.flush()
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause()
    this.#reader.reset()
    if (this.#closed) return
    this.#closed = true
    this.onclose?.()
  }

  /** Writes one JSON-RPC message as a line; resolves when stdout has taken it (after `drain`). */
  send(message: JsonRpcMessage): Promise<void> {
    const answered = responseId(message)
    if (answered !== undefined) this.settle(answered)
    return new Promise((resolve) => {
      if (this.write(message)) resolve()
      else this.#drainWaiters.push(resolve)
    })
  }

  /**
   * Writes one line; false when stdout is over its high-water mark, and then stdin is paused
   * until `drain` (a client that does not read its answers is not read either).
   */
  private write(message: JsonRpcMessage): boolean {
    if (this.#stdout.write(`${JSON.stringify(message)}\n`)) return true
    if (!this.#awaitingDrain) {
      this.#awaitingDrain = true
      this.#stdin.pause()
      this.#stdout.once('drain', this.#ondrain)
    }
    return false
  }

  readonly #ondrain = (): void => {
    this.#awaitingDrain = false
    const waiters = this.#drainWaiters
    this.#drainWaiters = []
    if (!this.#inputEnded && !this.#closed && this.#started) this.#stdin.resume()
    for (const resolve of waiters) resolve()
  }

  readonly #ondata = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    if (!this.#reader.push(bytes, this.#onevent)) this.endInput(true)
  }

  readonly #onerror = (error: Error): void => {
    this.onerror?.(error)
  }

  readonly #onend = (): void => {
    this.#reader.reset()
    this.endInput(false)
  }

  readonly #onevent = (event: LineEvent): void => {
    if (event.kind === 'value') this.dispatch(event.value)
    else if (event.kind === 'refused') {
      this.answer(event.id, jsonRpcErrorFor(JSON_RPC_ERRORS.parseError, event.error))
      this.report(StdioRefusalError.refused(event.error))
    } else {
      this.answer(event.id, jsonRpcErrorFor(JSON_RPC_ERRORS.serverError, event.error))
      this.report(StdioRefusalError.overflow(event.error, this.#skipOversized))
    }
  }

  private dispatch(message: unknown): void {
    if (!isJsonRpcMessage(message)) {
      this.answer(requestIdOf(message), {
        code: JSON_RPC_ERRORS.invalidRequest,
        message: 'Invalid Request',
        data: { code: INVALID_MESSAGE_CODE },
      })
      this.report(StdioRefusalError.invalidMessage())
      return
    }
    if (isJsonRpcRequest(message)) {
      this.#pending.set(message.id, (this.#pending.get(message.id) ?? 0) + 1)
    }
    try {
      this.onmessage?.(message)
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error('onmessage threw'))
    }
  }

  /**
   * One report per refused line, through the repeat window: the first of a code per window
   * reaches `onerror` at once, its repeats as one closing report with `repeated`.
   */
  private report(error: StdioRefusalError): void {
    reportRefusal(this.#onRefusal, stdioRefusalEvent(error))
    this.#reports.note(`${error.code}\u0000${error.jsonRpcCode}`, error)
  }

  /** A throwing handler must not stop the reading. */
  private deliverReport(error: StdioRefusalError): void {
    try {
      this.onerror?.(error)
    } catch {
      // The answer is already written; the server's logger failing changes nothing here.
    }
  }

  // A refusal answers a request the server never saw: it settles nothing pending (a refused
  // line may carry the id of a request in flight), so it is written, not sent.
  private answer(id: RequestIdLike | null, error: JsonRpcErrorObject): void {
    const message = { jsonrpc: '2.0', id, error } as unknown as JsonRpcMessage
    try {
      this.write(message)
    } catch (e) {
      this.onerror?.(e instanceof Error ? e : new Error('send failed'))
    }
  }

  private endInput(overflowed: boolean): void {
    if (this.#inputEnded) return
    this.#inputEnded = true
    this.detach()
    // Past the cap the rest of the line is never read: the read end is closed, so a writer
    // learns (EPIPE) instead of blocking on a full pipe.
    if (overflowed) this.#stdin.destroy()
    this.maybeClose()
  }

  private settle(id: RequestIdLike): void {
    const count = this.#pending.get(id)
    if (count === undefined) return
    if (count <= 1) this.#pending.delete(id)
    else this.#pending.set(id, count - 1)
    if (this.#inputEnded) queueMicrotask(() => this.maybeClose())
  }

  private maybeClose(): void {
    if (this.#inputEnded && this.#pending.size === 0 && !this.#closed) {
      this.close().catch(() => {})
    }
  }

  private detach(): void {
    this.#stdin.off('data', this.#ondata)
    this.#stdin.off('error', this.#onerror)
    this.#stdin.off('end', this.#onend)
  }
}

function responseId(message: JsonRpcMessage): RequestIdLike | undefined {
  const m = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown }
  if (m.method !== undefined) return undefined
  if (m.result === undefined && m.error === undefined) return undefined
  return typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined
}

/**
 * The id of a parsed value that is not a JSON-RPC message, under the scanner's rule (a
 * request's safe-integer id or short plain string id, else `null`).
 */
function requestIdOf(value: unknown): RequestIdLike | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null
  const m = value as { id?: unknown; method?: unknown; result?: unknown; error?: unknown }
  if (!('method' in m) || 'result' in m || 'error' in m) return null
  const id = m.id
  if (typeof id === 'number') return Number.isSafeInteger(id) && !Object.is(id, -0) ? id : null
  if (typeof id !== 'string' || id.length > MAX_RECOVERED_ID_CHARS) return null
  return /^[\x20-\x7e]*$/.test(id) && !id.includes('"') && !id.includes('\\') ? id : null
}
