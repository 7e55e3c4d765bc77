import type { IncomingMessage } from 'node:http'
import {
  booleanOption,
  checkOptions,
  createResolvedBrand,
  functionOption,
  integerOption,
  type OptionValidators,
  oneOfOption,
  resolveJsonLimits,
} from '@tollgate/json-budget'
import { PREFLIGHT_POLICY_VALIDATORS, resolvePreflightOptions } from '@tollgate/lexical-preflight'
import { defaultInFlightBudget, type InFlightBudget } from './budget.js'
import { parseByteLimit } from './limit.js'
import {
  HTTP_ADMISSION_CEILINGS,
  HTTP_ADMISSION_DEFAULTS,
  type HttpAdmissionOptions,
  type ResolvedHttpAdmissionOptions,
} from './options.js'

const TYPE_PATTERN = /^(?:[a-z0-9!#$&^_.+-]+|\*)\/(?:[a-z0-9!#$&^_.+-]+|\*|\*\+[a-z0-9!#$&^_.-]+)$/

/**
 * One validator per option; the table's keys are the known option names (`json()` takes the
 * same validators for its options). Cross-option rules (the ceiling, `limit` beside
 * `maxBytes`, `type` beside `types`) are checked by the resolver.
 * @internal
 */
export const HTTP_ADMISSION_VALIDATORS: OptionValidators<HttpAdmissionOptions> = {
  maxBytes: integerOption(),
  maxNodes: integerOption(),
  maxDepth: integerOption(true),
  ...PREFLIGHT_POLICY_VALIDATORS,
  types: (value, name) => {
    if (!Array.isArray(value) || !value.every(isMediaTypePattern)) {
      throw new TypeError(`${name} must hold media types such as application/json or */*+json`)
    }
  },
  otherTypes: oneOfOption(['refuse', 'pass']),
  passMethods: (value, name) => {
    if (
      !Array.isArray(value) ||
      !value.every((m) => typeof m === 'string' && /^[A-Za-z]+$/.test(m))
    ) {
      throw new TypeError(`${name} must hold HTTP method names`)
    }
  },
  inflate: booleanOption,
  maxInflationRatio: integerOption(),
  timeoutMs: integerOption(),
  idleTimeoutMs: integerOption(),
  budget: (value, name) => {
    const b = value as Partial<InFlightBudget> | null
    if (
      typeof b !== 'object' ||
      b === null ||
      typeof b.tryAcquire !== 'function' ||
      typeof b.release !== 'function'
    ) {
      throw new TypeError(`${name} must be an InFlightBudget (see createInFlightBudget)`)
    }
  },
  retryAfterSeconds: integerOption(true),
  keepRaw: booleanOption,
  onRefusal: oneOfOption(['respond', 'next']),
  renderRefusal: functionOption,
  strict: booleanOption,
  reviver: functionOption,
  // body-parser's own wording, which code that checks its configuration errors matches on.
  verify: (value) => {
    if (typeof value !== 'function') throw new TypeError('option verify must be function')
  },
  type: (value, name) => {
    if (typeof value === 'function') return
    const list: unknown = typeof value === 'string' ? [value] : value
    if (!Array.isArray(list))
      throw new TypeError(`${name} must be a string, an array or a function`)
    for (const t of list) typeShorthand(t)
  },
  limit: (value, name) => {
    parseByteLimit(name, value)
  },
  // Fair admission.
  minBytesPerSecond: limitOrFalse,
  minRateGraceMs: integerOption(true),
  principal: functionOption,
  maxBodiesPerPrincipal: limitOrFalse,
  principalShare: (value, name) => {
    if (value === false) return
    if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
      throw new TypeError(`${name} must be a number in (0, 1] or false`)
    }
  },
}

const brand = createResolvedBrand<ResolvedHttpAdmissionOptions>()

/**
 * Validates every option once, fills the defaults and freezes the result, so bad configuration
 * fails at start-up rather than on the first request; the adapters and the core take the
 * result and pay nothing per request. An object this function returned is returned as it is.
 * @throws TypeError naming the option: an unknown option, a non-positive or non-integer limit,
 * `maxBytes` (or `limit`) above 64 MiB, `limit` with `maxBytes` or `type` with `types`, a
 * malformed media type, a bad policy, or a `budget` that is not an {@link InFlightBudget}.
 */
export function resolveHttpAdmissionOptions(
  options: HttpAdmissionOptions | ResolvedHttpAdmissionOptions = {},
): ResolvedHttpAdmissionOptions {
  if (brand.has(options)) return options
  checkOptions(options, HTTP_ADMISSION_VALIDATORS, 'http-admission')
  const o: HttpAdmissionOptions = options ?? {}
  if (o.limit !== undefined && o.maxBytes !== undefined) {
    throw new TypeError('limit and maxBytes are the same option; give one')
  }
  if (o.type !== undefined && o.types !== undefined) {
    throw new TypeError('type and types are the same option; give one')
  }
  const d = HTTP_ADMISSION_DEFAULTS
  const maxBytes =
    o.maxBytes ?? (o.limit === undefined ? d.maxBytes : parseByteLimit('limit', o.limit))
  if (maxBytes > HTTP_ADMISSION_CEILINGS.maxBytes) {
    throw new TypeError(
      `maxBytes may not exceed ${HTTP_ADMISSION_CEILINGS.maxBytes}, got ${maxBytes}`,
    )
  }
  const limits = resolveJsonLimits({ maxNodes: o.maxNodes, maxDepth: o.maxDepth, maxBytes })
  const preflight = resolvePreflightOptions({
    ...limits,
    duplicateKeys: o.duplicateKeys,
    protoKeys: o.protoKeys,
    maxStringBytes: o.maxStringBytes,
    maxNumberLength: o.maxNumberLength,
    bom: o.bom,
  })
  const type = o.type
  let typeFilter: ((req: IncomingMessage) => unknown) | undefined
  let types: readonly string[] = o.types ?? d.types
  if (typeof type === 'function') {
    typeFilter = type
    types = ['*/*']
  } else if (type !== undefined) {
    types = (typeof type === 'string' ? [type] : type).map(typeShorthand)
  }
  return brand.mark(
    Object.freeze({
      ...limits,
      duplicateKeys: preflight.duplicateKeys,
      protoKeys: preflight.protoKeys,
      maxStringBytes: preflight.maxStringBytes,
      maxNumberLength: preflight.maxNumberLength,
      bom: preflight.bom,
      preflight,
      types: Object.freeze(types.map((t) => t.toLowerCase())),
      otherTypes: o.otherTypes ?? d.otherTypes,
      passMethods: Object.freeze((o.passMethods ?? d.passMethods).map((m) => m.toUpperCase())),
      inflate: o.inflate ?? d.inflate,
      maxInflationRatio: o.maxInflationRatio ?? d.maxInflationRatio,
      timeoutMs: o.timeoutMs ?? d.timeoutMs,
      idleTimeoutMs: o.idleTimeoutMs ?? d.idleTimeoutMs,
      budget: o.budget ?? defaultInFlightBudget,
      retryAfterSeconds: o.retryAfterSeconds ?? d.retryAfterSeconds,
      keepRaw: o.keepRaw ?? d.keepRaw,
      onRefusal: o.onRefusal ?? d.onRefusal,
      renderRefusal: o.renderRefusal,
      strict: o.strict ?? d.strict,
      reviver: o.reviver,
      verify: o.verify,
      typeFilter,
      // Fair admission.
      minBytesPerSecond: o.minBytesPerSecond ?? d.minBytesPerSecond,
      minRateGraceMs: o.minRateGraceMs ?? d.minRateGraceMs,
      principal: o.principal,
      maxBodiesPerPrincipal: o.maxBodiesPerPrincipal ?? d.maxBodiesPerPrincipal,
      principalShare: o.principalShare ?? d.principalShare,
    }),
  )
}

function isMediaTypePattern(value: unknown): boolean {
  return typeof value === 'string' && TYPE_PATTERN.test(value.toLowerCase())
}

// type-is's shorthands that name JSON; other extension names would need a MIME database.
function typeShorthand(type: unknown): string {
  if (type === 'json') return 'application/json'
  if (typeof type === 'string' && /^\+[a-z0-9!#$&^_.-]+$/i.test(type)) return `*/*${type}`
  if (isMediaTypePattern(type)) return type as string
  throw new TypeError("type must hold media types, 'json' or '+suffix' (no extension lookup)")
}

// Fair admission: a positive integer limit, or false to turn the control off.
function limitOrFalse(value: unknown, name: string): void {
  if (value !== false) integerOption()(value, name)
}
