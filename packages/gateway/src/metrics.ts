import { defineOptions, integerOption, type OptionsOf, option } from '@tollgate/json-budget'
import { Counter, Histogram, Registry } from 'prom-client'

// Prometheus keeps one series per distinct label set, for ever: a label value a caller can
// choose (a tool name it made up, a path it probed) is a memory leak in the gateway and in the
// monitoring behind it. So a tool label is a name the upstream serves (set from its
// `tools/list`) or `other`; a route label is one of the configured paths or `other`; a code
// label is an `ERR_…` code or a JSON-RPC number, at most `maxCodes` distinct ones, or `other`.

/**
 * The options of {@link gatewayMetrics}, declared once: the input type, the defaults and the
 * checks come from it.
 */
export const GATEWAY_METRICS_OPTIONS = defineOptions('gatewayMetrics', {
  routes: option<readonly string[] | undefined>({
    default: undefined,
    check: (value, name) => {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
        throw new TypeError(`${name} must be an array of strings`)
      }
    },
    shown: 'the first 64 seen',
    doc: 'the configured route paths: the only route label values',
  }),
  maxTools: option({
    default: 1_000,
    check: integerOption(),
    doc: "most distinct tool label values over the process's life",
  }),
  maxCodes: option({
    default: 64,
    check: integerOption(),
    doc: 'most distinct code label values',
  }),
})

/** Options of {@link gatewayMetrics} (see {@link GATEWAY_METRICS_OPTIONS}); every field optional. */
export type GatewayMetricsOptions = OptionsOf<typeof GATEWAY_METRICS_OPTIONS.rows>

/** The gateway's metrics, in a registry of its own. */
export interface GatewayMetrics {
  /** Counts one admitted call (`tollgate_gateway_admitted_total{route,tool}`). */
  admitted(route: string, tool: string): void
  /** Counts one refusal (`tollgate_gateway_refused_total{code,route,tool}`). */
  refused(code: string, route: string, tool: string): void
  /** Observes one upstream round trip, in seconds (`tollgate_gateway_upstream_seconds`). */
  upstreamSeconds(seconds: number): void
  /** Counts one restart of the upstream child (`tollgate_gateway_child_restarts_total`). */
  childRestarted(): void
  /**
   * Sets the tool names the upstream serves (after each `tools/list`): the tool label values.
   * Names beyond `maxTools` distinct ones over the process's life are counted as `other`.
   */
  setTools(names: readonly string[]): void
  /** The exposition for `GET /metrics`. */
  render(): Promise<{ contentType: string; body: string }>
}

const OTHER = 'other'
const CODE = /^(ERR_[A-Z0-9_]{1,60}|-?[0-9]{1,6})$/
const MAX_ROUTES = 64

/**
 * Builds the metrics (options validated now) in a new prom-client `Registry`, so two gateways
 * in one process, or a host's own metrics, never collide.
 * @throws TypeError on an unknown option, a `routes` that is not an array of strings, or a
 *   limit that is not a positive safe integer.
 */
export function gatewayMetrics(options?: GatewayMetricsOptions): GatewayMetrics {
  const { maxTools, maxCodes, routes } = GATEWAY_METRICS_OPTIONS.resolve(options)
  const fixedRoutes = routes === undefined ? undefined : new Set(routes)
  const registry = new Registry()
  const admitted = new Counter({
    name: 'tollgate_gateway_admitted_total',
    help: 'tools/call requests admitted and forwarded to the upstream',
    labelNames: ['route', 'tool'] as const,
    registers: [registry],
  })
  const refused = new Counter({
    name: 'tollgate_gateway_refused_total',
    help: 'requests refused by the gateway, by reason code',
    labelNames: ['code', 'route', 'tool'] as const,
    registers: [registry],
  })
  const upstream = new Histogram({
    name: 'tollgate_gateway_upstream_seconds',
    help: 'upstream round trip of a forwarded request, in seconds',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  })
  const restarts = new Counter({
    name: 'tollgate_gateway_child_restarts_total',
    help: 'restarts of the upstream child process',
    registers: [registry],
  })

  let served = new Set<string>()
  const everServed = new Set<string>()
  const seenRoutes = new Set<string>()
  const seenCodes = new Set<string>()
  const tool = (name: string) => (served.has(name) ? name : OTHER)
  const route = (path: string) => {
    if (fixedRoutes !== undefined) return fixedRoutes.has(path) ? path : OTHER
    if (seenRoutes.has(path)) return path
    if (seenRoutes.size >= MAX_ROUTES || typeof path !== 'string' || path.length > 256) return OTHER
    seenRoutes.add(path)
    return path
  }
  const code = (value: string) => {
    if (seenCodes.has(value)) return value
    if (seenCodes.size >= maxCodes || typeof value !== 'string' || !CODE.test(value)) return OTHER
    seenCodes.add(value)
    return value
  }

  return Object.freeze({
    admitted(r: string, t: string) {
      admitted.inc({ route: route(r), tool: tool(t) })
    },
    refused(c: string, r: string, t: string) {
      refused.inc({ code: code(c), route: route(r), tool: tool(t) })
    },
    upstreamSeconds(seconds: number) {
      if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0) {
        upstream.observe(seconds)
      }
    },
    childRestarted() {
      restarts.inc()
    },
    setTools(names: readonly string[]) {
      const next = new Set<string>()
      for (const name of names) {
        if (typeof name !== 'string') continue
        if (!everServed.has(name)) {
          if (everServed.size >= maxTools) continue
          everServed.add(name)
        }
        next.add(name)
      }
      served = next
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() }
    },
  })
}
