import {
  booleanOption,
  checkOptions,
  functionOption,
  integerOption,
  type OptionValidators,
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

/** Options of {@link toolGuard}. */
export interface ToolGuardOptions {
  /**
   * Keys admitted at the top level of a tool's `arguments` where its schema says nothing about
   * extra keys (the allowance list). Default: {@link DEFAULT_ALLOWED_EXTRA_KEYS}. `[]` admits none.
   */
  readonly allowedExtraKeys?: readonly string[]
  /**
   * Tools whose input schema is compiled as published, without closing silent objects (a
   * per-tool opt-out for a server that reads keys it does not declare). Default: `[]`.
   */
  readonly openTools?: readonly string[]
  /**
   * Largest schema compiled (an `inputSchema` or `outputSchema`), in bytes of compact UTF-8
   * JSON; a larger one quarantines its tool with `ERR_SCHEMA_TOO_LARGE`. Default: 256 KiB.
   * May not exceed 64 MiB.
   */
  readonly maxSchemaBytes?: number
  /** Most JSON nodes in one schema (as json-budget counts them). Default: 20,000. May not
   * exceed 100,000. */
  readonly maxSchemaNodes?: number
  /** Most nested containers in one schema. Default: 48. May not exceed 64. */
  readonly maxSchemaDepth?: number
  /**
   * Longest one schema may take to compile, in milliseconds of wall-clock time, measured after
   * the compile (which cannot be interrupted); over it, `ERR_SCHEMA_COMPILE_TIME`. Default: 1,000.
   */
  readonly maxCompileMs?: number
  /**
   * Quarantine a schema that uses a keyword its dialect does not define (vendor `x-` keywords
   * excepted; unknown `format` names are annotations). `false` ignores unknown keywords.
   * Default: `true`.
   */
  readonly strictKeywords?: boolean
  /** The clock the compile budget reads, in milliseconds. Default: `performance.now`. */
  readonly now?: () => number
}

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

/** The defaults of {@link ToolGuardOptions}. */
export const TOOL_GUARD_DEFAULTS: Readonly<{
  maxSchemaBytes: number
  maxSchemaNodes: number
  maxSchemaDepth: number
  maxCompileMs: number
  strictKeywords: boolean
}> = Object.freeze({
  maxSchemaBytes: 256 * 1024,
  maxSchemaNodes: 20_000,
  maxSchemaDepth: 48,
  maxCompileMs: 1_000,
  strictKeywords: true,
})

// The ceilings are json-budget's (the schema is charged with chargeJson).
const VALIDATORS: OptionValidators<ToolGuardOptions> = {
  allowedExtraKeys: stringListOption,
  openTools: stringListOption,
  maxSchemaBytes: ceilingOption(64 * 1024 * 1024),
  maxSchemaNodes: ceilingOption(100_000),
  maxSchemaDepth: ceilingOption(64),
  maxCompileMs: integerOption(),
  strictKeywords: booleanOption,
  now: functionOption,
}

/**
 * Fills {@link ToolGuardOptions} from {@link TOOL_GUARD_DEFAULTS}, validates every field once
 * and freezes the result.
 * @throws TypeError on an unknown option, a limit that is not a positive safe integer, a
 *   `maxSchemaDepth` above 64, a list that is not an array of strings, or a `now` that is not
 *   a function.
 */
export function resolveToolGuardOptions(options: ToolGuardOptions = {}): ResolvedToolGuardOptions {
  checkOptions(options, VALIDATORS, 'toolGuard')
  const input: ToolGuardOptions = options ?? {}
  const d = TOOL_GUARD_DEFAULTS
  return Object.freeze({
    allowedExtraKeys: Object.freeze([...(input.allowedExtraKeys ?? DEFAULT_ALLOWED_EXTRA_KEYS)]),
    openTools: new Set(input.openTools ?? []),
    maxSchemaBytes: input.maxSchemaBytes ?? d.maxSchemaBytes,
    maxSchemaNodes: input.maxSchemaNodes ?? d.maxSchemaNodes,
    maxSchemaDepth: input.maxSchemaDepth ?? d.maxSchemaDepth,
    maxCompileMs: input.maxCompileMs ?? d.maxCompileMs,
    strictKeywords: input.strictKeywords ?? d.strictKeywords,
    now: input.now ?? (() => performance.now()),
  })
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
