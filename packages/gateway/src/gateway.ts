import { type Access, access } from './access.js'
import { type Audit, auditLog } from './audit.js'
import { childUpstream } from './child-upstream.js'
import type { GatewayCliOptions } from './cli-options.js'
import { defaultGatewayConfig, type GatewayConfig, loadGatewayConfig } from './config.js'
import { serveHttp } from './http-front.js'
import { type HttpSessions, httpSessions } from './http-sessions.js'
import { httpUpstream } from './http-upstream.js'
import { InputBridge } from './input-bridge.js'
import { type Limiter, limiter } from './limiter.js'
import type { GatewayLog } from './log.js'
import { type GatewayMetrics, gatewayMetrics } from './metrics.js'
import { type ParkedCalls, parkedCalls } from './parked-calls.js'
import { PINS_STORE_ERROR, type PinJudgment, type PinStore, pinStore } from './pins.js'
import { redisPinsName } from './pins-redis.js'
import { MessagePipeline } from './pipeline.js'
import { type RequestStateSeal, requestStateSeal } from './request-state.js'
import { generatedSealingKeys } from './sealing-keys.js'
import { ServerRequestRelay } from './server-requests.js'
import { serveStdio } from './stdio-front.js'
import { ToolCatalog } from './tool-catalog.js'
import { type ToolGuard, toolGuard } from './tool-guard.js'
import type { Upstream } from './upstream.js'
import { upstreamIdentity } from './upstream-identity.js'

/** A running gateway. */
export interface RunningGateway {
  /** The HTTP port (`undefined` with `--stdio`). */
  readonly port: number | undefined
  /** Settles when a `--stdio` client's input has ended (never for HTTP). */
  readonly done: Promise<void>
  /** Drains (in-flight calls finish within `--drain-timeout-ms`), then stops the upstream. */
  stop(): Promise<void>
}

/** The controls a gateway holds, built once from the command line and the config. */
export interface GatewayControls {
  readonly config: GatewayConfig
  readonly guard: ToolGuard
  readonly pins: PinStore
  readonly access: Access
  readonly limiter: Limiter
  /** The session-era sessions of the HTTP front (their per-principal count is the fleet's with a Redis). */
  readonly sessions: HttpSessions
  readonly audit: Audit
  readonly metrics: GatewayMetrics
  /**
   * Seals the upstream's `requestState` (the config's `sealingKeys`, or one random key per
   * process). Optional only so a test can show what its absence lets through.
   */
  readonly requestState?: RequestStateSeal | undefined
  /**
   * The calls parked while a 2026-07-28 caller answers a 2025-era upstream's requests (the
   * config's `parkedCalls`); with `maxCalls` 0 the bridge is off.
   */
  readonly parkedCalls: ParkedCalls
}

/**
 * Builds the gateway's controls once, at start-up: the config (`--config`, or anonymous
 * callers on one route), the tool guard from its `tools` section, the pins (`--pins`, or in
 * memory).
 * @throws GatewayConfigError, PinsFileError or TypeError on a bad config or pin file, so the
 *   gateway fails at start-up rather than on the first call.
 */
export function gatewayControls(
  cli: Pick<GatewayCliOptions, 'config' | 'pins'> &
    Partial<
      Pick<
        GatewayCliOptions,
        'maxSessionsPerPrincipal' | 'maxSessions' | 'maxAnonymousSessions' | 'command' | 'upstream'
      >
    >,
): GatewayControls {
  const config = cli.config === undefined ? defaultGatewayConfig() : loadGatewayConfig(cli.config)
  return Object.freeze({
    config,
    guard: toolGuard(config.tools),
    // Pins in Redis are opened by `joinFleet`; until then nothing is approved (fail closed).
    pins:
      redisPinsName(cli.pins) !== undefined
        ? NO_PINS_YET
        : pinStore(cli.pins === undefined ? {} : { file: cli.pins }),
    access: access(config),
    limiter: limiter(config.limits),
    sessions: httpSessions({
      maxSessionsPerPrincipal: cli.maxSessionsPerPrincipal,
      maxSessions: cli.maxSessions,
      maxAnonymousSessions: cli.maxAnonymousSessions,
    }),
    audit: auditLog(),
    metrics: gatewayMetrics({ routes: config.routes.map((r) => r.path) }),
    requestState: requestStateSeal({
      ...config.requestState,
      upstreamId: config.requestState?.upstreamId ?? upstreamIdentity(cli),
      keys: (config.sealingKeys ?? generatedSealingKeys()).keys(),
    }),
    parkedCalls: parkedCalls(config.parkedCalls),
  })
}

const NO_PINS_YET: PinStore = Object.freeze({
  judge: (tools: readonly { name: string }[]): PinJudgment => ({
    approved: [],
    drifted: tools.map((t) => ({ name: t.name, reason: 'changed' as const })),
    namesChanged: true,
    firstSight: false,
    error: PINS_STORE_ERROR,
  }),
  approve: () => {
    throw new TypeError('pins in Redis need joinFleet')
  },
})

/**
 * Starts a gateway from resolved command-line options: the upstream (a supervised child), the
 * tool catalog (re-read after every upstream `initialize` and on `list_changed`), the pipeline,
 * and the front (HTTP, or stdio with `--stdio`).
 */
export async function startGateway(
  cli: GatewayCliOptions,
  controls: GatewayControls,
  log: GatewayLog,
): Promise<RunningGateway> {
  const upstream: Upstream =
    cli.upstream === undefined
      ? childUpstream({
          ...cli,
          log: (event, fields) => {
            if (event === 'child_restart_scheduled') controls.metrics.childRestarted()
            log(event, fields)
          },
        })
      : httpUpstream({
          url: cli.upstream,
          maxLineBytes: cli.maxLineBytes,
          maxConcurrentCalls: cli.maxConcurrentCalls,
          callTimeoutMs: cli.callTimeoutMs,
          log,
        })
  const catalog = new ToolCatalog(upstream, {
    guard: controls.guard,
    pins: controls.pins,
    log: (event, fields) => controls.audit.event(event, fields ?? {}),
    onLoaded: (names) => controls.metrics.setTools(names),
  })
  let pipeline: MessagePipeline | undefined
  // Pins another process can change (in Redis): an approval is judged here within a second.
  const unwatch = controls.pins.watch?.(() => void catalog.refresh())
  upstream.listen((event) => {
    if (event.kind === 'ready') void catalog.refresh()
    else if (event.kind === 'notification') {
      if (event.notification.method === 'notifications/tools/list_changed') void catalog.refresh()
      // A stdio child's progress arrives here; the pipeline routes it by the gateway's token.
      else pipeline?.relay(event.notification)
    }
  })
  await upstream.start()
  // The first list is read before the gateway takes callers, so nothing is served unjudged.
  await catalog.settled()
  pipeline = new MessagePipeline({
    upstream,
    catalog,
    guard: controls.guard,
    access: controls.access,
    metrics: controls.metrics,
    maxResultBytes: cli.maxResultBytes,
    log: (event, fields) => controls.audit.event(event, fields ?? {}),
    // A caller has as long to answer a relayed request as the upstream has to answer a call.
    relay: new ServerRequestRelay({ timeoutMs: cli.callTimeoutMs }),
    requestState: controls.requestState,
    bridge:
      controls.parkedCalls.options.maxCalls === 0
        ? undefined
        : new InputBridge(controls.parkedCalls, (event, fields) =>
            controls.audit.event(event, fields),
          ),
  })
  if (controls.requestState !== undefined) {
    // Key ids only: which key signs, how many verify, and whether they are this process's own.
    const ids = controls.requestState.options.keyIds
    log('request_state_keys', {
      signer: ids[0],
      keys: ids.length,
      generated: controls.config.sealingKeys === undefined,
    })
  }
  if (cli.stdio) {
    const done = serveStdio({
      input: process.stdin,
      output: process.stdout,
      maxLineBytes: cli.maxLineBytes,
      pipeline,
    })
    return Object.freeze({
      port: undefined,
      done,
      stop: () => {
        unwatch?.()
        controls.parkedCalls.clear()
        return upstream.close()
      },
    })
  }
  const front = await serveHttp({
    host: cli.host,
    port: cli.port,
    maxBodyBytes: cli.maxBodyBytes,
    pipeline,
    upstream,
    catalog,
    controls,
  })
  return Object.freeze({
    port: front.port,
    done: new Promise<void>(() => {}),
    async stop(): Promise<void> {
      unwatch?.()
      // Parked calls wait for a caller's retry, not for the upstream: cancelled, not drained.
      controls.parkedCalls.clear()
      await front.drain(cli.drainTimeoutMs)
      // The sessions' fleet leases are given back now rather than left to expire.
      await controls.sessions.closeAll()
      await upstream.close()
    },
  })
}
