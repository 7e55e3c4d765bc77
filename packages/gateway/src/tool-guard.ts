import { type CompiledSchema, type SchemaReason, schemaCompiler } from './schema-compile.js'
import {
  type ResolvedToolGuardOptions,
  resolveToolGuardOptions,
  type ToolGuardOptions,
} from './tool-guard-options.js'
import { schemaRefusal, type ToolRefusal, unknownToolRefusal } from './tool-refusal.js'

export type { ToolGuardOptions } from './tool-guard-options.js'
export type { ToolRefusal } from './tool-refusal.js'

/** One tool as the upstream's `tools/list` publishes it (every field kept). */
export interface UpstreamTool {
  readonly name: string
  readonly inputSchema?: unknown
  readonly outputSchema?: unknown
  readonly description?: string
  readonly annotations?: unknown
  readonly [field: string]: unknown
}

/**
 * Why a tool is quarantined: a {@link SchemaReason} of its input or output schema,
 * `ERR_TOOL_DUPLICATE` (the list names it twice) or `ERR_TOOL_NAME` (its name is not a
 * non-empty string; such a tool is reported under the name `''`).
 */
export type QuarantineReason = SchemaReason | 'ERR_TOOL_DUPLICATE' | 'ERR_TOOL_NAME'

/** A tool left out of the served set, with the reason code to audit. */
export interface QuarantinedTool {
  readonly name: string
  readonly reason: QuarantineReason
  /** Which schema failed, when a schema did. */
  readonly schema?: 'input' | 'output'
}

/** What {@link ToolGuard.load} served and quarantined. */
export interface ToolGuardLoad {
  readonly served: readonly UpstreamTool[]
  readonly quarantined: readonly QuarantinedTool[]
}

/**
 * The upstream's own contract, enforced: compiled input and output schemas of the tools it
 * serves. Built once by {@link toolGuard}; `load` replaces the compiled set.
 */
export interface ToolGuard {
  /**
   * Compiles every tool's input and output schema (2020-12, 2019-09 or draft-07 per `$schema`,
   * draft-07 when absent), closing silent objects, and replaces the previous set. A tool whose
   * schema is missing, cannot be compiled, names a `$ref` outside itself, uses an unsupported
   * dialect or exceeds the compile budget is quarantined, as is a duplicated or malformed name.
   */
  load(tools: readonly UpstreamTool[]): ToolGuardLoad
  /**
   * `undefined` when admitted. Checks the raw `arguments` (missing = `{}`) against the tool's
   * closed schema; a refusal (`ERR_TOOL_ARGUMENTS`) names a JSON Pointer and a keyword, never a
   * value or a key the caller chose. An unknown (`ERR_TOOL_UNKNOWN`) or quarantined
   * (`ERR_TOOL_QUARANTINED`) tool gets the same result bytes.
   */
  checkArguments(name: string, args: unknown): ToolRefusal | undefined
  /**
   * `undefined` when admitted. Checks a `tools/call` result's `structuredContent` against the
   * tool's `outputSchema` (`ERR_TOOL_RESULT`): a success result without `structuredContent`
   * is refused, as the MCP spec requires servers to provide it; an `isError` result and a tool
   * with no `outputSchema` pass.
   */
  checkResult(name: string, result: unknown): ToolRefusal | undefined
}

interface Compiled {
  readonly input: CompiledSchema
  readonly inputKeys: ReadonlySet<string>
  readonly output: CompiledSchema | undefined
  readonly outputKeys: ReadonlySet<string>
}

/**
 * Builds a tool guard from its options (validated now: a bad option throws at start-up). It
 * serves nothing until {@link ToolGuard.load} is called.
 * @throws TypeError on an invalid option (see {@link ToolGuardOptions}).
 */
export function toolGuard(options?: ToolGuardOptions): ToolGuard {
  const policy = resolveToolGuardOptions(options)
  let compiled = new Map<string, Compiled>()
  let quarantined = new Set<string>()
  // The last load's verdicts by definition: a re-read list (every list_changed) compiles only
  // what changed, so an upstream announcing changes cannot stall the gateway in Ajv.
  let verdicts = new Map<string, Verdict>()

  return Object.freeze({
    load(tools: readonly UpstreamTool[]): ToolGuardLoad {
      const result = compileAll(tools, policy, verdicts)
      verdicts = result.verdicts
      compiled = result.compiled
      quarantined = new Set(result.quarantined.map((q) => q.name))
      return { served: result.served, quarantined: result.quarantined }
    },
    checkArguments(name: string, args: unknown): ToolRefusal | undefined {
      const tool = compiled.get(name)
      if (tool === undefined) return refuseUnknown(name, quarantined)
      const value = args === undefined ? {} : args
      // MCP arguments are an object whatever the schema says (a root with no `type` would
      // otherwise admit an array or a string).
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return schemaRefusal('ERR_TOOL_ARGUMENTS', name, NOT_AN_OBJECT, tool.inputKeys, value)
      }
      if (tool.input(value)) return undefined
      return schemaRefusal(
        'ERR_TOOL_ARGUMENTS',
        name,
        tool.input.errors?.[0],
        tool.inputKeys,
        value,
      )
    },
    checkResult(name: string, result: unknown): ToolRefusal | undefined {
      const tool = compiled.get(name)
      if (tool === undefined) return refuseUnknown(name, quarantined)
      if (tool.output === undefined) return undefined
      if (typeof result !== 'object' || result === null) {
        return schemaRefusal('ERR_TOOL_RESULT', name, undefined, tool.outputKeys, undefined)
      }
      if ((result as { isError?: unknown }).isError === true) return undefined
      if (!Object.hasOwn(result, 'structuredContent')) {
        return schemaRefusal('ERR_TOOL_RESULT', name, undefined, tool.outputKeys, undefined)
      }
      const content = (result as { structuredContent: unknown }).structuredContent
      if (tool.output(content)) return undefined
      return schemaRefusal(
        'ERR_TOOL_RESULT',
        name,
        tool.output.errors?.[0],
        tool.outputKeys,
        content,
      )
    },
  })
}

const NOT_AN_OBJECT = Object.freeze({
  keyword: 'type',
  instancePath: '',
  params: Object.freeze({ type: 'object' }),
})

function refuseUnknown(name: string, quarantined: ReadonlySet<string>): ToolRefusal {
  return unknownToolRefusal(quarantined.has(name) ? 'ERR_TOOL_QUARANTINED' : 'ERR_TOOL_UNKNOWN')
}

/** One tool definition's compile outcome: its validators, or why it is quarantined. */
type Verdict =
  | { readonly ok: true; readonly compiled: Compiled }
  | { readonly ok: false; readonly quarantine: QuarantinedTool }

function compileAll(
  tools: readonly UpstreamTool[],
  policy: ResolvedToolGuardOptions,
  previous: ReadonlyMap<string, Verdict>,
) {
  const compiler = schemaCompiler(policy)
  const verdicts = new Map<string, Verdict>()
  const compiled = new Map<string, Compiled>()
  const served: UpstreamTool[] = []
  const quarantined: QuarantinedTool[] = []
  const counts = new Map<string, number>()
  for (const tool of tools) {
    const name = (tool as { name?: unknown }).name
    if (typeof name === 'string') counts.set(name, (counts.get(name) ?? 0) + 1)
  }
  for (const tool of tools) {
    const name = (tool as { name?: unknown }).name
    if (typeof name !== 'string' || name === '') {
      quarantined.push({ name: '', reason: 'ERR_TOOL_NAME' })
      continue
    }
    // Two definitions under one name: which one a call reaches is the upstream's choice, so
    // neither is served.
    if ((counts.get(name) ?? 0) > 1) {
      if (!quarantined.some((q) => q.name === name)) {
        quarantined.push({ name, reason: 'ERR_TOOL_DUPLICATE' })
      }
      continue
    }
    const key = JSON.stringify([name, tool.inputSchema ?? null, tool.outputSchema ?? null])
    const verdict = previous.get(key) ?? verdicts.get(key) ?? compileOne(compiler, policy, tool)
    // A compile that ran out of time is tried again on the next read (the machine may have
    // been busy); every other verdict stands while the definition is the same.
    if (verdict.ok || verdict.quarantine.reason !== 'ERR_SCHEMA_COMPILE_TIME') {
      verdicts.set(key, verdict)
    }
    if (!verdict.ok) {
      quarantined.push(verdict.quarantine)
      continue
    }
    compiled.set(name, verdict.compiled)
    served.push(tool)
  }
  return { compiled, served, quarantined, verdicts }
}

function compileOne(
  compiler: ReturnType<typeof schemaCompiler>,
  policy: ResolvedToolGuardOptions,
  tool: UpstreamTool,
): Verdict {
  const name = tool.name
  const input = compiler.compile(tool.inputSchema, {
    close: !policy.openTools.has(name),
    allowedExtraKeys: policy.allowedExtraKeys,
  })
  if (!input.ok) return { ok: false, quarantine: { name, reason: input.reason, schema: 'input' } }
  let output: CompiledSchema | undefined
  let outputKeys: ReadonlySet<string> = new Set()
  if (tool.outputSchema !== undefined) {
    // A result may carry keys its schema does not name (the spec allows it): output
    // schemas are compiled as published, never closed.
    const out = compiler.compile(tool.outputSchema, { close: false, allowedExtraKeys: [] })
    if (!out.ok) return { ok: false, quarantine: { name, reason: out.reason, schema: 'output' } }
    output = out.validate
    outputKeys = out.knownKeys
  }
  return {
    ok: true,
    compiled: { input: input.validate, inputKeys: input.knownKeys, output, outputKeys },
  }
}
