import type { RefusalHook } from '@tollgate/json-budget'
import {
  booleanOption,
  defineOptions,
  functionOption,
  integerOption,
  JSON_LIMITS,
  type OptionsOf,
  oneOfOption,
  option,
  type ResolvedJsonLimits,
  type ResolvedOf,
  resolveJsonLimits,
} from '@tollgate/json-budget'
import type { SchemaRegistry } from './registry.js'
import type { UnpublishedToolPolicy } from './unpublished-tools.js'

const MiB = 1024 * 1024

// A string is iterable too (by character): refused rather than mounting single letters.
function surfaceOption(value: unknown, name: string): void {
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function'
  ) {
    throw new TypeError(`${name} must be an iterable of tool names (a Set or an array)`)
  }
  for (const tool of value as Iterable<unknown>) {
    if (typeof tool !== 'string') throw new TypeError(`${name} must hold tool names (strings)`)
  }
}

/**
 * The options of {@link withInputValidation} and {@link checkToolCall}, declared once. The JSON
 * limits bound the `arguments` of one `tools/call`, charged before any validator sees them, so
 * the validator's work is a function of these numbers, not of what a caller sends; each may
 * be lowered, never raised past json-budget's ceiling.
 */
export const INPUT_VALIDATION_OPTIONS = defineOptions('withInputValidation', {
  maxDepth: option({
    default: 32,
    check: integerOption(true),
    ceiling: JSON_LIMITS.defaults.maxDepth,
    doc: 'most nested containers in `arguments` (`{}` is 1); equal is admitted; ceiling 64; 0 refuses every `tools/call` (a deny-all route)',
  }),
  maxNodes: option({
    default: 10_000,
    check: integerOption(),
    ceiling: JSON_LIMITS.defaults.maxNodes,
    doc: 'most JSON nodes in `arguments`; equal is admitted; ceiling 100,000',
  }),
  maxBytes: option({
    default: 4 * MiB,
    check: integerOption(),
    ceiling: JSON_LIMITS.defaults.maxBytes,
    doc: 'largest compact UTF-8 JSON of `arguments`; equal is admitted; ceiling 64 MiB',
  }),
  rewriteToolsList: option({
    default: true,
    check: booleanOption,
    doc: 'each `tools/list` `inputSchema` becomes the bundled published schema; tools without one are left out',
  }),
  surface: option<Iterable<string> | undefined>({
    default: undefined,
    check: surfaceOption,
    // Copied into a Set once, so the check is one lookup whatever the name.
    normalize: (value) => new Set(value),
    shown: 'none (every published tool)',
    doc: 'the tool names the route mounts: a `tools/call` off it is refused as unknown before the registry is asked; `tools/list` leaves it out',
  }),
  onRefusal: option<RefusalHook | undefined>({
    default: undefined,
    check: functionOption,
    doc: "called once per refused request with json-budget's frozen `RefusalEvent`: `code` (`ERR_TOOL_UNKNOWN`, `ERR_TOOL_ARGUMENTS`, a bound's `ERR_JSON_…` with its limit, `ERR_MCP_REUSED_ID`), `control` the step (`mcp-tool-surface`, `mcp-tool-published`, `mcp-tool-params`, `mcp-tool-bounds`, `mcp-tool-schema`, `mcp-request-id`), the connection's `route` and `principal`; never the caller's bytes; a throwing hook is caught",
  }),
  unpublishedTools: option<UnpublishedToolPolicy>({
    default: 'warn',
    check: oneOfOption<UnpublishedToolPolicy>(['error', 'warn']),
    doc: "what `connect` (of the control, or of a server it guards) does when the server registers a tool with no published schema: `'warn'` connects and writes one process warning (`ERR_TOOL_UNPUBLISHED`) per tool name, the tool still refused as unknown; `'error'` rejects with `ERR_TOOL_UNPUBLISHED` naming the tools",
  }),
})

/** Options of {@link withInputValidation} (see {@link INPUT_VALIDATION_OPTIONS}). */
export type InputValidationOptions = OptionsOf<typeof INPUT_VALIDATION_OPTIONS.rows>

/** {@link InputValidationOptions} with every default filled, validated and frozen. */
export interface ResolvedInputValidationOptions
  extends Omit<ResolvedOf<typeof INPUT_VALIDATION_OPTIONS.rows>, 'surface'> {
  /** The route's surface, or `undefined` for every published tool. */
  readonly surface: ReadonlySet<string> | undefined
}

/**
 * Validates the options once and freezes them (see {@link INPUT_VALIDATION_OPTIONS}); an object
 * this function returned is returned as it is. `maxDepth: 0` is admitted: a deny-all route.
 * @throws TypeError naming the option: an unknown option, a bad limit or one above its
 *   ceiling, a non-boolean `rewriteToolsList`, a `surface` that is a string or not an iterable
 *   of strings, an `onRefusal` that is not a function.
 */
export function resolveInputValidationOptions(
  options: InputValidationOptions | ResolvedInputValidationOptions | undefined = undefined,
): ResolvedInputValidationOptions {
  return INPUT_VALIDATION_OPTIONS.resolve(options) as ResolvedInputValidationOptions
}

// The json-budget resolved limits of each resolved options object: chargeJson skips validating
// those, where a flat options object would be validated again on every call.
const CHARGE_LIMITS = new WeakMap<ResolvedInputValidationOptions, ResolvedJsonLimits>()

/** The limits to charge `arguments` with, resolved once per options object (for check-call.ts). */
export function chargeLimitsOf(options: ResolvedInputValidationOptions): ResolvedJsonLimits {
  let limits = CHARGE_LIMITS.get(options)
  if (limits === undefined) {
    const { maxDepth, maxNodes, maxBytes } = options
    limits = resolveJsonLimits({ maxDepth, maxNodes, maxBytes })
    CHARGE_LIMITS.set(options, limits)
  }
  return limits
}

/**
 * Checks that `registry` has the shape of a {@link SchemaRegistry}, at construction.
 * @throws TypeError when it does not.
 */
export function assertSchemaRegistry(registry: unknown): asserts registry is SchemaRegistry {
  const r = registry as Partial<SchemaRegistry> | null
  if (
    typeof r !== 'object' ||
    r === null ||
    typeof r.has !== 'function' ||
    typeof r.validate !== 'function' ||
    typeof r.bundled !== 'function'
  ) {
    throw new TypeError('registry must be a SchemaRegistry (see loadSchemaRegistry)')
  }
}
