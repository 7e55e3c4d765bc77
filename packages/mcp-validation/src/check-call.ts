import { type AdmissionCode, chargeJson, isAdmissionError } from '@tollgate/json-budget'
import { boundedLimit, boundedPointer, clampPointer, pointerSegments } from './bounded-text.js'
import { chargeLimitsOf, type ResolvedInputValidationOptions } from './options.js'
import type { ArgumentsRefusal } from './refusal.js'
import type { SchemaRegistry, SchemaViolation } from './registry.js'

/** Why a `tools/call` was refused as naming no tool this route serves (audit only). */
export interface UnknownToolError {
  /** The tool is off the surface, unpublished, or not named by a string: one refusal for all. */
  readonly code: 'ERR_TOOL_UNKNOWN'
  /** Audit only, never answered: every unknown-tool refusal is the same bytes. */
  readonly reason: 'off_surface' | 'unpublished' | 'malformed'
  /** Length of the name when it was a string (audit only). */
  readonly nameLength: number | undefined
}

/** Why a published tool's `arguments` were refused: a structural bound or its schema. */
export interface ToolArgumentsError {
  readonly code: 'ERR_TOOL_ARGUMENTS'
  readonly tool: string
  readonly refusal: ArgumentsRefusal
}

/** The verdict on one `tools/call`'s params. */
export type ToolCallVerdict =
  | { readonly ok: true; readonly tool: string }
  | { readonly ok: false; readonly error: UnknownToolError | ToolArgumentsError }

const OPTION_OF: Partial<Record<AdmissionCode, string>> = {
  ERR_JSON_TOO_DEEP: 'maxDepth',
  ERR_JSON_TOO_MANY_NODES: 'maxNodes',
  ERR_JSON_TOO_LARGE: 'maxBytes',
}

// Keywords whose error names a caller's key in its params rather than in the instance path.
const KEY_PARAM: Readonly<Record<string, string>> = {
  unevaluatedProperties: 'unevaluatedProperty',
  additionalProperties: 'additionalProperty',
  required: 'missingProperty',
  dependentRequired: 'missingProperty',
  propertyNames: 'propertyName',
}

// Keywords whose schema-side limit is in the error's params, and under which name.
const LIMIT_PARAM: Readonly<Record<string, string>> = {
  maxLength: 'limit',
  minLength: 'limit',
  maxItems: 'limit',
  minItems: 'limit',
  maxProperties: 'limit',
  minProperties: 'limit',
  maximum: 'limit',
  minimum: 'limit',
  exclusiveMaximum: 'limit',
  exclusiveMinimum: 'limit',
  multipleOf: 'multipleOf',
  pattern: 'pattern',
  format: 'format',
  type: 'type',
  enum: 'allowedValues',
  const: 'allowedValue',
}

/**
 * Judges one `tools/call`'s `params` (a pure function; the decorator and tests share it):
 * a name off `options.surface` is `ERR_TOOL_UNKNOWN` before the registry is asked anything, so a
 * tool mounted on another route and a tool that exists nowhere take the same path and the
 * same single `Set` lookup; a name the registry does not know is `ERR_TOOL_UNKNOWN` too (fail
 * closed); otherwise the arguments
 * (missing = `{}`) are charged against the bounds first, then validated against the tool's
 * published schema (`ERR_TOOL_ARGUMENTS`). A refusal holds the bounded pointer and the keyword with the schema's
 * limit, never a value.
 */
export function checkToolCall(
  registry: SchemaRegistry,
  params: unknown,
  options: ResolvedInputValidationOptions,
): ToolCallVerdict {
  const name =
    typeof params === 'object' && params !== null ? (params as { name?: unknown }).name : undefined
  if (typeof name !== 'string') {
    return unknown('malformed', undefined)
  }
  // The route's surface first: nothing about a name off it (not even whether a schema exists
  // for it) may shape the answer or the work done.
  if (options.surface !== undefined && !options.surface.has(name)) {
    return unknown('off_surface', name.length)
  }
  if (!registry.has(name)) {
    return unknown('unpublished', name.length)
  }
  const raw = (params as { arguments?: unknown }).arguments
  const args = raw === undefined ? {} : raw
  try {
    chargeJson(args, chargeLimitsOf(options))
  } catch (error) {
    if (!isAdmissionError(error)) throw error
    const refusal: ArgumentsRefusal = {
      kind: 'bounds',
      code: error.code,
      option: OPTION_OF[error.code],
      limit: error.limit,
      pointer: clampPointer(error.path ?? ''),
    }
    return refused(name, refusal)
  }
  const violation = registry.validate(name, args)
  if (violation === null) return { ok: true, tool: name }
  return refused(name, describeViolation(violation))
}

function unknown(
  reason: UnknownToolError['reason'],
  nameLength: number | undefined,
): ToolCallVerdict {
  return { ok: false, error: { code: 'ERR_TOOL_UNKNOWN', reason, nameLength } }
}

function refused(tool: string, refusal: ArgumentsRefusal): ToolCallVerdict {
  return { ok: false, error: { code: 'ERR_TOOL_ARGUMENTS', tool, refusal } }
}

function describeViolation(violation: SchemaViolation): ArgumentsRefusal {
  const segments: string[] = pointerSegments(violation.instancePath)
  const keyParam = KEY_PARAM[violation.keyword]
  const key = keyParam === undefined ? undefined : violation.params[keyParam]
  if (typeof key === 'string') segments.push(key)
  const limitParam = LIMIT_PARAM[violation.keyword]
  const limit = limitParam === undefined ? undefined : violation.params[limitParam]
  return {
    kind: 'schema',
    keyword: violation.keyword,
    limit:
      violation.keyword === 'unevaluatedProperties' || violation.keyword === 'additionalProperties'
        ? 'false'
        : limit === undefined
          ? undefined
          : boundedLimit(limit),
    pointer: boundedPointer(segments),
  }
}
