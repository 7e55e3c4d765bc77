import {
  JSON_LIMITS_DEFAULTS,
  type ResolvedJsonLimits,
  resolveJsonLimits,
} from '@tollgate/json-budget'
import type { RefusalHook } from './refusal-event.js'

const MiB = 1024 * 1024

/**
 * The bounds the arguments of one `tools/call` are charged against before any validator sees
 * them: 32 nested containers, 10,000 nodes, 4 MiB of compact JSON. Every published schema is
 * far shallower and smaller; the bound is there so the validator's work is a function of
 * these numbers, not of what a caller sends.
 */
export const DEFAULT_ARGUMENT_LIMITS: ResolvedJsonLimits = Object.freeze({
  maxDepth: 32,
  maxNodes: 10_000,
  maxBytes: 4 * MiB,
})

/** Options of {@link withInputValidation} and {@link checkToolCall}. */
export interface InputValidationOptions {
  /**
   * Most nested containers admitted in `arguments` (`{}` is depth 1). A depth equal to the
   * limit is admitted. Default: 32. May not exceed 64.
   */
  readonly maxDepth?: number
  /**
   * Most JSON nodes admitted in `arguments` (containers, scalars and object keys each count
   * once). A count equal to the limit is admitted. Default: 10,000. May not exceed 100,000.
   */
  readonly maxNodes?: number
  /**
   * Largest compact UTF-8 JSON encoding of `arguments` admitted, in bytes. Default: 4 MiB.
   * May not exceed 64 MiB.
   */
  readonly maxBytes?: number
  /**
   * Rewrite each outgoing `tools/list` result so every tool's `inputSchema` is its published
   * schema (bundled, `$ref` inlined), and leave out tools that have none (they are refused as
   * unknown). Default: `true`.
   */
  readonly rewriteToolsList?: boolean
  /**
   * The tool names the route this transport serves mounts (its surface): a `tools/call` naming
   * anything else is refused with {@link UNKNOWN_TOOL_ERROR}, the bytes a tool that exists
   * nowhere gets, before the registry or any schema is consulted; `tools/list` leaves out
   * every tool not on it. Copied into a `Set` at construction, so the check is one `Set`
   * lookup whatever the name (a route's `RouteView.names` from `@tollgate/continuation` fits
   * as is). Names without a published schema may be listed; they stay refused (fail closed).
   * Default: `undefined`, every tool the registry publishes (one surface for the process).
   */
  readonly surface?: Iterable<string>
  /**
   * Called once, synchronously, for every request the decorator refuses, with the reason code
   * and no caller bytes (see {@link RefusalEvent}): the seat of the audit line. An error it
   * throws goes to the transport's `onerror`; the refusal is answered regardless.
   * Default: `undefined` (no hook).
   */
  readonly onRefusal?: RefusalHook
}

/** {@link InputValidationOptions} with every default filled, validated and frozen. */
export interface ResolvedInputValidationOptions {
  readonly limits: ResolvedJsonLimits
  readonly rewriteToolsList: boolean
  /** The route's surface, or `undefined` for every published tool. */
  readonly surface: ReadonlySet<string> | undefined
  readonly onRefusal: RefusalHook | undefined
}

const KNOWN = new Set([
  'maxDepth',
  'maxNodes',
  'maxBytes',
  'rewriteToolsList',
  'surface',
  'onRefusal',
])

/**
 * Fills {@link InputValidationOptions} from the defaults, validates every field once and
 * freezes the result.
 * @throws TypeError on an unknown option, a limit that is not a positive safe integer, a
 *   limit above its ceiling (`JSON_LIMITS_DEFAULTS`), a non-boolean `rewriteToolsList`, a
 *   `surface` that is a string or not an iterable of strings, or an `onRefusal` that is not a
 *   function.
 */
export function resolveOptions(
  options: InputValidationOptions = {},
): ResolvedInputValidationOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('options must be an object')
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new TypeError(`unknown option ${JSON.stringify(key.slice(0, 64))}`)
  }
  // resolveJsonLimits validates each field and refuses any above the shared ceiling; the object it
  // returns is recognised by chargeJson, which then skips validating it on every call.
  const limits = resolveJsonLimits(
    {
      maxDepth: options.maxDepth ?? DEFAULT_ARGUMENT_LIMITS.maxDepth,
      maxNodes: options.maxNodes ?? DEFAULT_ARGUMENT_LIMITS.maxNodes,
      maxBytes: options.maxBytes ?? DEFAULT_ARGUMENT_LIMITS.maxBytes,
    },
    JSON_LIMITS_DEFAULTS,
  )
  const rewriteToolsList = options.rewriteToolsList ?? true
  if (typeof rewriteToolsList !== 'boolean') {
    throw new TypeError('rewriteToolsList must be a boolean')
  }
  const onRefusal = options.onRefusal
  if (onRefusal !== undefined && typeof onRefusal !== 'function') {
    throw new TypeError('onRefusal must be a function')
  }
  return Object.freeze({
    limits,
    rewriteToolsList,
    surface: resolveSurface(options.surface),
    onRefusal,
  })
}

function resolveSurface(surface: Iterable<string> | undefined): ReadonlySet<string> | undefined {
  if (surface === undefined) return undefined
  // A string is iterable too (by character): refuse it rather than mount single letters.
  if (
    typeof surface !== 'object' ||
    surface === null ||
    typeof (surface as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function'
  ) {
    throw new TypeError('surface must be an iterable of tool names (a Set or an array)')
  }
  const names = new Set<string>()
  for (const name of surface) {
    if (typeof name !== 'string') throw new TypeError('surface must hold tool names (strings)')
    names.add(name)
  }
  return names
}
