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
  #byName = new Map<string, UpstreamTool>()
  #refreshing: Promise<void> | undefined
  #again = false

  constructor(
    upstream: Upstream,
    options: { guard?: ToolGuard; pins?: PinStore; log: GatewayLog },
  ) {
    this.#upstream = upstream
    this.#guard = options.guard
    this.#pins = options.pins
    this.#log = options.log
  }

  /** The tools served now, in the upstream's order. */
  get served(): readonly UpstreamTool[] {
    return this.#served
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
    const tools: UpstreamTool[] = []
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const reply = await this.#upstream.request(
        'tools/list',
        cursor === undefined ? {} : { cursor },
      )
      if (!reply.ok) {
        this.#log('tools_list_failed', { code: String(reply.error.code) })
        return
      }
      const result = reply.result as { tools?: unknown; nextCursor?: unknown }
      if (!Array.isArray(result.tools)) {
        this.#log('tools_list_failed', { code: 'ERR_UPSTREAM_INVALID' })
        return
      }
      for (const tool of result.tools) {
        if (
          tool !== null &&
          typeof tool === 'object' &&
          typeof (tool as { name?: unknown }).name === 'string'
        ) {
          tools.push(tool as UpstreamTool)
        }
      }
      if (typeof result.nextCursor !== 'string') break
      cursor = result.nextCursor
    }
    // Pins first, over every tool the upstream lists (a rename or a new tool is drift), then
    // the guard compiles only the approved ones, so a drifted tool is unknown to it as well.
    let served: readonly UpstreamTool[] = tools
    if (this.#pins !== undefined) {
      let judged: ReturnType<PinStore['judge']>
      try {
        judged = this.#pins.judge(served)
      } catch {
        // The pins cannot be written: nothing is approved (fail closed).
        this.#log('pins_failed', { code: 'ERR_PINS_FILE' })
        judged = { approved: [], drifted: [], namesChanged: false, firstSight: false }
      }
      if (judged.error !== undefined) this.#log('pins_failed', { code: judged.error })
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
    this.#log('tools_loaded', { upstream: tools.length, served: served.length })
  }
}
