import type { GatewayLog } from './log.js'
import type { PinStore } from './pins.js'
import type { ToolGuard, UpstreamTool } from './tool-guard.js'
import type { Upstream } from './upstream.js'

/** Most pages of `tools/list` read from an upstream in one refresh. */
const MAX_PAGES = 100

/**
 * The upstream's tools as the gateway serves them: read with `tools/list` (every page) after each
 * upstream `initialize` and on `notifications/tools/list_changed`, judged by the pins (drift
 * quarantined), compiled by the guard (uncompilable schemas quarantined), and only what
 * passes both is served. Until the first read completes, nothing is served (fail closed).
 */
export class ToolCatalog {
  readonly #upstream: Upstream
  readonly #guard: ToolGuard | undefined
  readonly #pins: PinStore | undefined
  readonly #log: GatewayLog
  #served: readonly UpstreamTool[] = []
  #hints: CacheHints = {}
  #byName = new Map<string, UpstreamTool>()
  #refreshing: Promise<void> | undefined
  #again = false

  readonly #onLoaded: ((names: readonly string[]) => void) | undefined

  constructor(
    upstream: Upstream,
    options: {
      guard?: ToolGuard
      pins?: PinStore
      log: GatewayLog
      /** Called with the served names after each read (the metrics' tool labels). */
      onLoaded?: (names: readonly string[]) => void
    },
  ) {
    this.#onLoaded = options.onLoaded
    this.#upstream = upstream
    this.#guard = options.guard
    this.#pins = options.pins
    this.#log = options.log
  }

  /** The tools served now, in the upstream's order. */
  get served(): readonly UpstreamTool[] {
    return this.#served
  }

  /**
   * The caching hints (`ttlMs`, `cacheScope`) of the upstream's last `tools/list` read, where
   * it sent valid ones (a 2026-07-28 upstream).
   */
  get hints(): CacheHints {
    return this.#hints
  }

  /** The served tool named `name`, if any. */
  find(name: string): UpstreamTool | undefined {
    return this.#byName.get(name)
  }

  /** Settles when the read under way (if any) is done. */
  settled(): Promise<void> {
    return this.#refreshing ?? Promise.resolve()
  }

  /** Re-reads and re-judges the list; concurrent calls share one read (and one more after it). */
  refresh(): Promise<void> {
    if (this.#refreshing !== undefined) {
      this.#again = true
      return this.#refreshing
    }
    this.#refreshing = this.#read().finally(() => {
      this.#refreshing = undefined
      if (this.#again) {
        this.#again = false
        void this.refresh()
      }
    })
    return this.#refreshing
  }

  async #read(): Promise<void> {
    const list = await readUpstreamList(this.#upstream, this.#log)
    if (list === undefined) return
    const { tools } = list
    this.#hints = list.hints
    // Pins first, over every tool the upstream lists (a rename or a new tool is drift), then
    // the guard compiles only the approved ones, so a drifted tool is unknown to it as well.
    let served: readonly UpstreamTool[] = tools
    if (this.#pins !== undefined) {
      let judged: Awaited<ReturnType<PinStore['judge']>>
      try {
        judged = await this.#pins.judge(served)
      } catch {
        // The pins cannot be written: nothing is approved (fail closed).
        this.#log('pins_failed', { code: 'ERR_PINS_FILE' })
        judged = { approved: [], drifted: [], namesChanged: false, firstSight: false }
      }
      if (judged.error !== undefined) this.#log('pins_failed', { code: judged.error })
      if (judged.firstSight) this.#log('pins_created', { tools: judged.approved.length })
      for (const d of judged.drifted) this.#log('tool_drifted', { tool: d.name, reason: d.reason })
      served = judged.approved
    }
    if (this.#guard !== undefined) {
      const loaded = this.#guard.load(served)
      for (const q of loaded.quarantined)
        this.#log('tool_quarantined', { tool: q.name, reason: q.reason })
      served = loaded.served
    }
    this.#served = Object.freeze([...served])
    this.#byName = new Map(served.map((t) => [t.name, t]))
    this.#onLoaded?.(served.map((t) => t.name))
    this.#log('tools_loaded', { upstream: tools.length, served: served.length })
  }
}

/**
 * Reads the upstream's whole `tools/list` (every page, at most 100) as the gateway's own
 * request (outside the cap on calls in flight). Entries without a string name are dropped.
 * @returns the tools, or `undefined` when the upstream failed to list them (logged).
 */
export async function readUpstreamTools(
  upstream: Upstream,
  log: GatewayLog,
): Promise<UpstreamTool[] | undefined> {
  return (await readUpstreamList(upstream, log))?.tools
}

/** The caching hints of a 2026-07-28 list result: `ttlMs` (ms, integer ≥ 0) and `cacheScope`. */
export interface CacheHints {
  readonly ttlMs?: number
  readonly cacheScope?: 'public' | 'private'
}

/** {@link readUpstreamTools}, with the first page's valid caching hints. */
async function readUpstreamList(
  upstream: Upstream,
  log: GatewayLog,
): Promise<{ tools: UpstreamTool[]; hints: CacheHints } | undefined> {
  const tools: UpstreamTool[] = []
  let hints: CacheHints | undefined
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const reply = await upstream.request('tools/list', cursor === undefined ? {} : { cursor }, true)
    if (!reply.ok) {
      log('tools_list_failed', { code: String(reply.error.code) })
      return undefined
    }
    const result = reply.result as {
      tools?: unknown
      nextCursor?: unknown
      ttlMs?: unknown
      cacheScope?: unknown
    }
    if (!Array.isArray(result.tools)) {
      log('tools_list_failed', { code: 'ERR_UPSTREAM_INVALID' })
      return undefined
    }
    hints ??= {
      ...(Number.isSafeInteger(result.ttlMs) && (result.ttlMs as number) >= 0
        ? { ttlMs: result.ttlMs as number }
        : {}),
      ...(result.cacheScope === 'public' || result.cacheScope === 'private'
        ? { cacheScope: result.cacheScope }
        : {}),
    }
    for (const tool of result.tools) {
      const name = (tool as { name?: unknown } | null)?.name
      if (tool !== null && typeof tool === 'object' && typeof name === 'string')
        tools.push(tool as UpstreamTool)
    }
    if (typeof result.nextCursor !== 'string') break
    cursor = result.nextCursor
  }
  return { tools, hints: hints ?? {} }
}
