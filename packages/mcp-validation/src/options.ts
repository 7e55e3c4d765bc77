import {
  booleanOption,
  checkOptions,
  createResolvedBrand,
  functionOption,
  integerOption,
  JSON_LIMITS_DEFAULTS,
  type JsonLimitsOptions,
  type OptionValidators,
  REPEAT_WINDOW_OPTIONS,
  type ResolvedJsonLimits,
  resolveJsonLimits,
} from '@tollgate/json-budget'
import type { RefusalHook } from './refusal-event.js'

const MiB = 1024 * 1024

/**
 * Options of {@link withInputValidation} and {@link checkToolCall}. The JSON limits bound the
 * `arguments` of one `tools/call`, charged before any validator sees them.
 */
export interface InputValidationOptions extends JsonLimitsOptions {
  /**
   * Most nested containers admitted in `arguments` (`{}` is depth 1). A depth equal to the
   * limit is admitted. Default: 32. May not exceed 64. `0` is admitted (json-budget's
   * "integer ≥ 0"): no `arguments` fits (missing ones count as `{}`), so every `tools/call`
   * of a published tool is refused with `ERR_JSON_TOO_DEEP`, limit 0: a deny-all route.
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
   * Called synchronously with the reason code and no caller bytes (see {@link RefusalEvent})
   * for a refused request: the seat of the audit line. Repeats of a kind within
   * `refusalWindowMs` come as one closing event with `repeated`. An error it throws goes to the
   * transport's `onerror`; the refusal is answered regardless.
   * Default: `undefined` (no hook).
   */
  readonly onRefusal?: RefusalHook
  /**
   * Milliseconds during which repeats of a refusal of one kind (same reason, method, tool,
   * code and keyword; the pointer, which the caller chooses, is not part of the kind) are
   * counted instead of reported: the first reaches `onRefusal` at once, the repeats as one
   * closing event with `repeated` when the window ends or the transport closes, so a burst of
   * N refusals costs a bounded number of audit lines. `0` reports every refusal.
   * Default: 10,000.
   */
  readonly refusalWindowMs?: number
}

/** {@link InputValidationOptions} with every default filled, validated and frozen. */
export interface ResolvedInputValidationOptions extends ResolvedJsonLimits {
  readonly rewriteToolsList: boolean
  /** The route's surface, or `undefined` for every published tool. */
  readonly surface: ReadonlySet<string> | undefined
  readonly onRefusal: RefusalHook | undefined
  readonly refusalWindowMs: number
}

/**
 * The defaults: 32 nested containers, 10,000 nodes, 4 MiB of compact JSON per `arguments`,
 * `tools/list` rewritten, and repeats of a refusal counted over 10 s. Every published schema is far shallower and smaller; the bound is
 * there so the validator's work is a function of these numbers, not of what a caller sends.
 */
export const INPUT_VALIDATION_DEFAULTS: Readonly<{
  maxDepth: number
  maxNodes: number
  maxBytes: number
  rewriteToolsList: boolean
  refusalWindowMs: number
}> = Object.freeze({
  maxDepth: 32,
  maxNodes: 10_000,
  maxBytes: 4 * MiB,
  rewriteToolsList: true,
  refusalWindowMs: REPEAT_WINDOW_OPTIONS.defaults.windowMs,
})

const VALIDATORS: OptionValidators<InputValidationOptions> = {
  maxDepth: integerOption(true),
  maxNodes: integerOption(),
  maxBytes: integerOption(),
  rewriteToolsList: booleanOption,
  // Checked (and copied) by resolveSurface below, which needs the value anyway.
  surface: () => {},
  onRefusal: functionOption,
  refusalWindowMs: integerOption(true),
}

const brand = createResolvedBrand<ResolvedInputValidationOptions>()

/**
 * Fills {@link InputValidationOptions} from {@link INPUT_VALIDATION_DEFAULTS}, validates every
 * field once and freezes the result; an object this function returned is returned as it is.
 * `maxDepth: 0` is admitted, as json-budget's shared vocabulary has it ("integer ≥ 0"): a
 * deny-all route, where every `tools/call` of a published tool is refused with
 * `ERR_JSON_TOO_DEEP` and limit 0 (its `arguments`, `{}` when missing, are depth 1).
 * @throws TypeError on an unknown option, a `maxDepth` that is not a safe integer ≥ 0, a
 *   `maxNodes` or `maxBytes` that is not a positive safe integer, a limit above its ceiling
 *   (`JSON_LIMITS_DEFAULTS`), a non-boolean `rewriteToolsList`, a `surface` that is a string
 *   or not an iterable of strings, or an `onRefusal` that is not a function.
 */
export function resolveInputValidationOptions(
  options: InputValidationOptions | ResolvedInputValidationOptions = {},
): ResolvedInputValidationOptions {
  if (brand.has(options)) return options
  checkOptions(options, VALIDATORS, 'withInputValidation')
  const input: InputValidationOptions = options ?? {}
  const d = INPUT_VALIDATION_DEFAULTS
  // resolveJsonLimits refuses any limit above the shared ceiling; the object it returns is the
  // one chargeJson recognises, so it is kept whole for the charge (see check-call.ts).
  const limits = resolveJsonLimits(
    {
      maxDepth: input.maxDepth ?? d.maxDepth,
      maxNodes: input.maxNodes ?? d.maxNodes,
      maxBytes: input.maxBytes ?? d.maxBytes,
    },
    JSON_LIMITS_DEFAULTS,
  )
  const resolved = Object.freeze({
    maxDepth: limits.maxDepth,
    maxNodes: limits.maxNodes,
    maxBytes: limits.maxBytes,
    rewriteToolsList: input.rewriteToolsList ?? d.rewriteToolsList,
    surface: resolveSurface(input.surface),
    onRefusal: input.onRefusal,
    refusalWindowMs: input.refusalWindowMs ?? d.refusalWindowMs,
  })
  CHARGE_LIMITS.set(resolved, limits)
  return brand.mark(resolved)
}

// The json-budget resolved limits of each resolved options object: chargeJson skips validating
// those, where a flat options object would be validated again on every call.
const CHARGE_LIMITS = new WeakMap<ResolvedInputValidationOptions, ResolvedJsonLimits>()

/** The limits to charge `arguments` with, resolved once (internal to check-call.ts). */
export function chargeLimitsOf(options: ResolvedInputValidationOptions): ResolvedJsonLimits {
  return (
    CHARGE_LIMITS.get(options) ??
    resolveJsonLimits(
      { maxDepth: options.maxDepth, maxNodes: options.maxNodes, maxBytes: options.maxBytes },
      JSON_LIMITS_DEFAULTS,
    )
  )
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
