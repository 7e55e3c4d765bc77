import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { BoundedStdioServerTransport } from '@tollgate/mcp-transport'
import { type GatewayCode, gatewayRpcError } from './gateway-errors.js'
import type { GatewayLog } from './log.js'
import { type RpcReply, RpcSession } from './rpc-session.js'
import { cappedLines } from './stderr-lines.js'
import {
  GATEWAY_CLIENT_CAPABILITIES,
  GATEWAY_CLIENT_INFO,
  readHandshake,
  type ServerRequest,
  UPSTREAM_PROTOCOL_VERSION,
  type Upstream,
  type UpstreamCall,
  type UpstreamEvent,
  type UpstreamHandshake,
} from './upstream.js'

/** Options of {@link childUpstream} (the CLI's names, resolved by `parseGatewayArgs`). */
export interface ChildUpstreamOptions {
  readonly command: readonly string[]
  readonly maxLineBytes: number
  readonly maxConcurrentCalls: number
  readonly callTimeoutMs: number
  readonly restartBackoffMs: number
  readonly maxRestartBackoffMs: number
  readonly stableUptimeMs: number
  readonly breakerCrashes: number
  readonly maxStderrLineBytes: number
  readonly log: GatewayLog
}

/**
 * How long a child has to answer the gateway's `initialize` (servers started with `npx` may
 * install first): 60 s, whatever `--call-timeout-ms` is.
 */
const INITIALIZE_TIMEOUT_MS = 60_000

/** How long a child has after SIGTERM before its process group is killed. */
const KILL_GRACE_MS = 2000

/**
 * A supervised stdio child as an {@link Upstream}. The child runs in its own process group
 * (so a signal to the gateway's group does not reach it, and stopping it stops its own children
 * too); its stdin is the gateway's pipe, so it sees end of input if the gateway is killed. Its
 * stdout is read by the bounded stdio transport of `@tollgate/mcp-transport` under
 * `maxLineBytes` (a line past it is never buffered: the child is stopped and every call in
 * flight is answered `ERR_UPSTREAM_LINE_TOO_LARGE`); its stderr is forwarded to the log a line at
 * a time, each line capped at `maxStderrLineBytes`. When the child exits, every call in flight is
 * answered `ERR_UPSTREAM_EXITED` at once; it is restarted after a backoff that doubles per crash
 * (from `restartBackoffMs` to `maxRestartBackoffMs`) and resets after `stableUptimeMs` of uptime;
 * `breakerCrashes` crashes without such an uptime open the breaker: no more restarts, and every
 * call is answered `ERR_UPSTREAM_UNAVAILABLE`. A spawn failure counts as a crash; the gateway
 * stays up.
 */
export function childUpstream(options: ChildUpstreamOptions): Upstream {
  const { log } = options
  let listener: ((event: UpstreamEvent) => void) | undefined
  let child: ChildProcessWithoutNullStreams | undefined
  let session: RpcSession | undefined
  let handshake: UpstreamHandshake | undefined
  let crashes = 0
  let backoff = options.restartBackoffMs
  let stopping = false
  let restartTimer: NodeJS.Timeout | undefined
  let stableTimer: NodeJS.Timeout | undefined
  let generation = 0
  let firstSettled: (() => void) | undefined
  /** The callers' calls in flight (a child's request to its client goes to one of them). */
  const calls = new Set<UpstreamCall>()

  const emit = (event: UpstreamEvent): void => listener?.(event)

  function spawnChild(): void {
    const gen = ++generation
    const [command, ...args] = options.command as [string, ...string[]]
    let proc: ChildProcessWithoutNullStreams
    try {
      proc = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    } catch {
      log('child_spawn_failed', { code: 'ERR_UPSTREAM_UNAVAILABLE' })
      crashed(gen, 'ERR_UPSTREAM_UNAVAILABLE')
      return
    }
    child = proc
    let lineOverflow = false
    proc.on('error', (error: NodeJS.ErrnoException) => {
      if (proc.pid === undefined) {
        log('child_spawn_failed', {
          code: typeof error.code === 'string' ? error.code : 'ERR_UPSTREAM_UNAVAILABLE',
        })
        crashed(gen, 'ERR_UPSTREAM_UNAVAILABLE')
      }
    })
    if (proc.pid === undefined) return
    log('child_started', { pid: proc.pid })
    proc.stdin.on('error', () => {})
    proc.stderr.pipe(
      cappedLines(options.maxStderrLineBytes, (line, dropped) =>
        log('child_stderr', { line, dropped }),
      ),
    )
    const transport = new BoundedStdioServerTransport(proc.stdout, proc.stdin, {
      maxLineBytes: options.maxLineBytes,
    })
    transport.onerror = (error) => {
      if ((error as { code?: unknown }).code === 'ERR_LINE_TOO_LARGE' && !lineOverflow) {
        lineOverflow = true
        log('child_line_too_large', { limit: options.maxLineBytes })
        session?.failAll('ERR_UPSTREAM_LINE_TOO_LARGE')
        killGroup(proc, 'SIGKILL')
      }
    }
    const rpc = new RpcSession(transport, {
      maxInFlight: options.maxConcurrentCalls,
      timeoutMs: options.callTimeoutMs,
    })
    session = rpc
    rpc.onnotification = (notification) => {
      if (gen === generation) emit({ kind: 'notification', notification })
    }
    rpc.onrequest = (request) => routeRequest(request)
    rpc.onclose = () => {
      // The child closed its stdout (or passed the line cap): it can no longer answer.
      if (proc.exitCode === null && proc.signalCode === null) killGroup(proc, 'SIGKILL')
    }
    proc.on('exit', (code, signal) => {
      log('child_exited', { code: code ?? undefined, signal: signal ?? undefined })
      rpc.failAll(lineOverflow ? 'ERR_UPSTREAM_LINE_TOO_LARGE' : 'ERR_UPSTREAM_EXITED')
      transport.close().catch(() => {})
      crashed(gen, 'ERR_UPSTREAM_EXITED')
    })
    void rpc.start().then(() => initialize(gen, rpc))
  }

  async function initialize(gen: number, rpc: RpcSession): Promise<void> {
    const reply = await rpc.request(
      'initialize',
      {
        protocolVersion: UPSTREAM_PROTOCOL_VERSION,
        capabilities: GATEWAY_CLIENT_CAPABILITIES,
        clientInfo: GATEWAY_CLIENT_INFO,
      },
      true,
      INITIALIZE_TIMEOUT_MS,
    )
    if (gen !== generation || stopping) return
    const found = reply.ok ? readHandshake(reply.result) : undefined
    if (found === undefined) {
      log('child_initialize_failed', {
        code: reply.ok
          ? 'ERR_UPSTREAM_INVALID'
          : String((reply.error.data as { code?: unknown } | undefined)?.code ?? reply.error.code),
      })
      if (child !== undefined) killGroup(child, 'SIGKILL')
      return
    }
    rpc.notify('notifications/initialized')
    handshake = found
    log('child_ready', { protocolVersion: found.protocolVersion })
    stableTimer = setTimeout(() => {
      crashes = 0
      backoff = options.restartBackoffMs
    }, options.stableUptimeMs)
    stableTimer.unref()
    firstSettled?.()
    emit({ kind: 'ready', handshake: found })
  }

  /**
   * A stdio child's request names no call it is about: it goes to the caller whose calls are
   * in flight when they are all one caller's; otherwise (none, or several callers) it is
   * refused, so one caller never sees a request meant for another.
   */
  function routeRequest(request: ServerRequest): Promise<RpcReply> {
    let only: UpstreamCall | undefined
    for (const call of calls) {
      if (only === undefined) only = call
      else if (call.caller === undefined || call.caller !== only.caller) {
        only = undefined
        break
      }
    }
    if (only?.onRequest === undefined) {
      return Promise.resolve({ ok: false, error: gatewayRpcError('ERR_RELAY_UNROUTABLE') })
    }
    return only.onRequest(request)
  }

  function crashed(gen: number, _code: GatewayCode): void {
    if (gen !== generation) return
    generation++
    handshake = undefined
    session = undefined
    child = undefined
    if (stableTimer !== undefined) clearTimeout(stableTimer)
    emit({ kind: 'down' })
    firstSettled?.()
    if (stopping) return
    crashes += 1
    if (crashes >= options.breakerCrashes) {
      log('child_breaker_open', { crashes })
      return
    }
    const delay = backoff
    backoff = Math.min(backoff * 2, options.maxRestartBackoffMs)
    log('child_restart_scheduled', { delayMs: delay, crashes })
    restartTimer = setTimeout(() => {
      restartTimer = undefined
      if (!stopping) spawnChild()
    }, delay)
  }

  return Object.freeze({
    get handshake() {
      return handshake
    },
    async request(
      method: string,
      params: unknown,
      own = false,
      call?: UpstreamCall,
    ): Promise<RpcReply> {
      if (session === undefined || handshake === undefined) {
        return { ok: false as const, error: gatewayRpcError('ERR_UPSTREAM_UNAVAILABLE') }
      }
      if (own) return session.request(method, params, true, INITIALIZE_TIMEOUT_MS)
      // Every call counts (one that cannot take requests makes routing ambiguous too).
      const tracked: UpstreamCall = call ?? {}
      calls.add(tracked)
      try {
        return await session.request(method, params, false, undefined, tracked.signal)
      } finally {
        calls.delete(tracked)
      }
    },
    notify(method: string, params?: unknown): void {
      if (handshake !== undefined) session?.notify(method, params)
    },
    listen(l: (event: UpstreamEvent) => void): void {
      listener = l
    },
    start(): Promise<void> {
      return new Promise<void>((resolve) => {
        firstSettled = () => {
          firstSettled = undefined
          resolve()
        }
        spawnChild()
      })
    },
    async close(): Promise<void> {
      stopping = true
      if (restartTimer !== undefined) clearTimeout(restartTimer)
      if (stableTimer !== undefined) clearTimeout(stableTimer)
      const proc = child
      session?.failAll('ERR_GATEWAY_DRAINING')
      if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
      proc.stdin.end()
      killGroup(proc, 'SIGTERM')
      const timer = setTimeout(() => killGroup(proc, 'SIGKILL'), KILL_GRACE_MS)
      await exited
      clearTimeout(timer)
      // Whatever the child left behind in its group goes with it.
      killGroup(proc, 'SIGKILL')
    },
  })
}

function killGroup(proc: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): void {
  if (proc.pid === undefined) return
  try {
    process.kill(-proc.pid, signal)
  } catch {
    try {
      proc.kill(signal)
    } catch {
      // Already gone.
    }
  }
}
