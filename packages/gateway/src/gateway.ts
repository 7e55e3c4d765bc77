import { childUpstream } from './child-upstream.js'
import { type GatewayCliOptions, GatewayUsageError } from './cli-options.js'
import { defaultGatewayConfig, type GatewayConfig, loadGatewayConfig } from './config.js'
import { serveHttp } from './http-front.js'
import { httpUpstream } from './http-upstream.js'
import type { GatewayLog } from './log.js'
import { type PinStore, pinStore } from './pins.js'
import { MessagePipeline } from './pipeline.js'
import { serveStdio } from './stdio-front.js'
import { ToolCatalog } from './tool-catalog.js'
import { type ToolGuard, toolGuard } from './tool-guard.js'
import type { Upstream } from './upstream.js'

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
}

/**
 * Builds the gateway's controls once, at start-up: the config (`--config`, or anonymous
 * callers on one route), the tool guard from its `tools` section, the pins (`--pins`, or in
 * memory).
 * @throws GatewayConfigError, PinsFileError or TypeError on a bad config or pin file, so the
 *   gateway fails at start-up rather than on the first call.
 */
export function gatewayControls(cli: Pick<GatewayCliOptions, 'config' | 'pins'>): GatewayControls {
  const config = cli.config === undefined ? defaultGatewayConfig() : loadGatewayConfig(cli.config)
  const unenforced = unenforcedSections(config)
  if (unenforced.length > 0) {
    // A control the host does not apply yet must not look applied: fail at start-up.
    throw new GatewayUsageError(
      `--config sets ${unenforced.join(', ')}, which this version does not enforce yet; remove them`,
    )
  }
  return Object.freeze({
    config,
    guard: toolGuard(config.tools),
    pins: pinStore(cli.pins === undefined ? {} : { file: cli.pins }),
  })
}

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
      ? childUpstream({ ...cli, log })
      : httpUpstream({
          url: cli.upstream,
          maxLineBytes: cli.maxLineBytes,
          maxConcurrentCalls: cli.maxConcurrentCalls,
          callTimeoutMs: cli.callTimeoutMs,
          log,
        })
  const catalog = new ToolCatalog(upstream, { guard: controls.guard, pins: controls.pins, log })
  upstream.listen((event) => {
    if (event.kind === 'ready') void catalog.refresh()
    else if (
      event.kind === 'notification' &&
      event.notification.method === 'notifications/tools/list_changed'
    ) {
      void catalog.refresh()
    }
  })
  await upstream.start()
  // The first list is read before the gateway takes callers, so nothing is served unjudged.
  await catalog.settled()
  const pipeline = new MessagePipeline({
    upstream,
    catalog,
    guard: controls.guard,
    maxResultBytes: cli.maxResultBytes,
    log,
  })
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
      stop: () => upstream.close(),
    })
  }
  const front = await serveHttp({
    host: cli.host,
    port: cli.port,
    maxBodyBytes: cli.maxBodyBytes,
    pipeline,
    upstream,
  })
  return Object.freeze({
    port: front.port,
    done: new Promise<void>(() => {}),
    async stop(): Promise<void> {
      await front.drain(cli.drainTimeoutMs)
      await upstream.close()
    },
  })
}

/**
 * The config sections this host does not apply yet: credentials, routes other than the
 * anonymous `/mcp`, route tool lists, and per-principal limits.
 */
function unenforcedSections(config: GatewayConfig): string[] {
  const out: string[] = []
  if (config.credentials.length > 0) out.push('credentials')
  const routes = config.routes
  const plain =
    routes.length === 1 &&
    routes[0]?.path === '/mcp' &&
    routes[0].anonymous &&
    routes[0].allow === undefined &&
    routes[0].deny.length === 0
  if (!plain) out.push('routes (only one anonymous /mcp route without tool lists)')
  if (Object.keys(config.limits).length > 0) out.push('limits')
  return out
}
