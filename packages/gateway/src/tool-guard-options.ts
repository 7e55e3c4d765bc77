import {
  booleanOption,
  defineOptions,
  functionOption,
  integerOption,
  type OptionsOf,
  option,
} from '@tollgate/json-budget'

/**
 * Keys some MCP clients add to the `arguments` of every `tools/call` whatever the tool
 * publishes: `_meta` (request metadata placed in the arguments instead of the params),
 * `toolCallId` and `tool_call_description` (the client's own call bookkeeping). A closed root
 * admits them; a schema that closes itself, or names them, decides for itself.
 */
export const DEFAULT_ALLOWED_EXTRA_KEYS: readonly string[] = Object.freeze([
  '_meta',
  'toolCallId',
  'tool_call_description',
])

/**
 * The options of the tool guard, declared once: the input type, the defaults and the checks
 * come from it. The schema ceilings are json-budget's (a schema is charged with chargeJson).
 */
export const TOOL_GUARD_OPTIONS = defineOptions('toolGuard', {
  allowedExtraKeys: option<readonly string[]>({
    default: DEFAULT_ALLOWED_EXTRA_KEYS,
    check: stringListOption,
    normalize: (value) => Object.freeze([...value]),
    doc: "keys admitted at the top level of a tool's `arguments` where its schema says nothing about extra keys (the allowance list); `[]` admits none",
  }),
  openTools: option<readonly string[]>({
    default: Object.freeze([]),
    check: stringListOption,
    doc: 'tools whose input schema is compiled as published, without closing silent objects (a per-tool opt-out for a server that reads keys it does not declare)',
  }),
  maxSchemaBytes: option({
    default: 256 * 1024,
    check: ceilingOption(64 * 1024 * 1024),
    shown: '256 KiB',
    doc: 'largest schema compiled (an `inputSchema` or `outputSchema`), in bytes of compact UTF-8 JSON; a larger one quarantines its tool with `ERR_SCHEMA_TOO_LARGE`; at most 64 MiB',
  }),
  maxSchemaNodes: option({
    default: 20_000,
    check: ceilingOption(100_000),
    doc: 'most JSON nodes in one schema (as json-budget counts them); at most 100,000',
  }),
  maxSchemaDepth: option({
    default: 48,
    check: ceilingOption(64),
    doc: 'most nested containers in one schema; at most 64',
  }),
  maxCompileMs: option({
    default: 1_000,
    check: integerOption(),
    doc: 'longest one schema may take to compile, in milliseconds of wall-clock time, measured after the compile (which cannot be interrupted); over it, `ERR_SCHEMA_COMPILE_TIME`',
  }),
  strictKeywords: option({
    default: true,
    check: booleanOption,
    doc: 'quarantine a schema that uses a keyword its dialect does not define (vendor `x-` keywords excepted; unknown `format` names are annotations); `false` ignores unknown keywords',
  }),
  now: option<() => number>({
    default: () => performance.now(),
    check: functionOption,
    shown: '`performance.now`',
    doc: 'the clock the compile budget reads, in milliseconds',
  }),
})

/** Options of the tool guard (see {@link TOOL_GUARD_OPTIONS}); every field optional. */
export type ToolGuardOptions = OptionsOf<typeof TOOL_GUARD_OPTIONS.rows>

/** {@link ToolGuardOptions} with every default filled, validated and frozen. */
export interface ResolvedToolGuardOptions {
  readonly allowedExtraKeys: readonly string[]
  readonly openTools: ReadonlySet<string>
  readonly maxSchemaBytes: number
  readonly maxSchemaNodes: number
  readonly maxSchemaDepth: number
  readonly maxCompileMs: number
  readonly strictKeywords: boolean
  readonly now: () => number
}

/** The numeric and boolean defaults of {@link ToolGuardOptions} (from {@link TOOL_GUARD_OPTIONS}). */
export const TOOL_GUARD_DEFAULTS: Readonly<{
  maxSchemaBytes: number
  maxSchemaNodes: number
  maxSchemaDepth: number
  maxCompileMs: number
  strictKeywords: boolean
}> = Object.freeze({
  maxSchemaBytes: TOOL_GUARD_OPTIONS.defaults.maxSchemaBytes,
  maxSchemaNodes: TOOL_GUARD_OPTIONS.defaults.maxSchemaNodes,
  maxSchemaDepth: TOOL_GUARD_OPTIONS.defaults.maxSchemaDepth,
  maxCompileMs: TOOL_GUARD_OPTIONS.defaults.maxCompileMs,
  strictKeywords: TOOL_GUARD_OPTIONS.defaults.strictKeywords,
})

/**
 * Fills {@link ToolGuardOptions} from {@link TOOL_GUARD_OPTIONS}, validates every field once
 * and freezes the result.
 * @throws TypeError on an unknown option, a limit that is not a positive safe integer, a
 *   `maxSchemaDepth` above 64, a list that is not an array of strings, or a `now` that is not
 *   a function.
 */
export function resolveToolGuardOptions(options: ToolGuardOptions = {}): ResolvedToolGuardOptions {
  const resolved = TOOL_GUARD_OPTIONS.resolve(options)
  return Object.freeze({ ...resolved, openTools: new Set(resolved.openTools) })
}

function ceilingOption(ceiling: number): (value: unknown, name: string) => void {
  return (value, name) => {
    integerOption()(value, name)
    if ((value as number) > ceiling) throw new TypeError(`${name} may not exceed ${ceiling}`)
  }
}

function stringListOption(value: unknown, name: string): void {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new TypeError(`${name} must be an array of strings`)
  }
}
