import { type RefusalCodeSpec, refusalCodeSpec } from './refusal-codes.js'

const BRAND = Symbol.for('tollgate.AdmissionError')

/**
 * A stable refusal code (`ERR_*`). Each package defines the codes it raises with
 * `defineRefusalCodes` and exports their table (`JSON_BUDGET_CODES`, `PREFLIGHT_CODES`,
 * `HTTP_ADMISSION_CODES`, `MCP_TRANSPORT_CODES`).
 */
export type AdmissionCode = `ERR_${string}`

/** Details a refusal carries besides its code. All are numbers or bounded strings. */
export interface AdmissionErrorDetails {
  /** The limit that was passed, in the unit of the option named by the code. */
  readonly limit?: number
  /** What was seen where known (may be a lower bound when the refusal came early). */
  readonly observed?: number
  /** Bounded JSON Pointer to the offending place in a value (see `formatPointer`). */
  readonly path?: string
  /** Byte offset in the input where a scanner refused. */
  readonly offset?: number
  /** The option to raise, when it is not the code's default option name. */
  readonly option?: string
}

/** The plain-data form of an {@link AdmissionError}, safe to log or send. */
export interface AdmissionErrorJson {
  readonly code: AdmissionCode
  readonly status?: number
  readonly message: string
  readonly limit?: number
  readonly observed?: number
  readonly path?: string
  readonly offset?: number
}

/**
 * A refusal: a stable `code`, the `limit` passed, what was `observed`, a bounded JSON Pointer
 * `path` and a byte `offset` where they apply. The message is built from these alone and never
 * holds the caller's bytes. Branch on `code` through {@link isAdmissionError}, not
 * `instanceof`, which fails when two copies of this package load (ESM beside CJS).
 */
export class AdmissionError extends Error {
  declare readonly [BRAND]: true
  readonly code: AdmissionCode
  /** HTTP status an adapter answers with; `undefined` when nobody is left to answer. */
  readonly status: number | undefined
  readonly limit: number | undefined
  readonly observed: number | undefined
  readonly path: string | undefined
  readonly offset: number | undefined
  /** The option a caller raises to admit more (the code's default, or the one the thrower named). */
  readonly option: string | undefined

  /**
   * `spec` is the owner's entry for `code` (each package's `admissionError` passes the one in
   * its table); without it the registered entry is used. Either way the code must be
   * registered, so every `AdmissionError` is one {@link isAdmissionError} recognizes.
   * @throws TypeError when no loaded package registered `code` (a programming error: each
   *   package builds its refusals through its own code table, which registers them). The
   *   message does not repeat the code.
   */
  constructor(
    code: AdmissionCode,
    details: AdmissionErrorDetails = {},
    spec: RefusalCodeSpec | undefined = undefined,
  ) {
    // The registry is a Map: a code that is not a string is simply not in it.
    const registered = refusalCodeSpec(code)
    if (registered === undefined) {
      throw new TypeError('AdmissionError: the code is not registered by any loaded package')
    }
    const entry = spec ?? registered
    const option = details.option ?? entry.option
    super(formatMessage(entry.message, details.limit, option))
    Object.defineProperty(this, BRAND, { value: true })
    this.name = 'AdmissionError'
    this.code = code
    this.status = entry.status
    this.limit = details.limit
    this.observed = details.observed
    this.path = details.path
    this.offset = details.offset
    this.option = option
  }

  /** The plain-data form: code, status, message and the numeric details that are set. */
  toJSON(): AdmissionErrorJson {
    const out: { -readonly [K in keyof AdmissionErrorJson]: AdmissionErrorJson[K] } = {
      code: this.code,
      message: this.message,
    }
    if (this.status !== undefined) out.status = this.status
    if (this.limit !== undefined) out.limit = this.limit
    if (this.observed !== undefined) out.observed = this.observed
    if (this.path !== undefined) out.path = this.path
    if (this.offset !== undefined) out.offset = this.offset
    return out
  }
}

/**
 * True for an {@link AdmissionError} from any loaded copy of this package (the check is a
 * `Symbol.for` brand plus a registered code, so it survives dual ESM/CJS loading).
 */
export function isAdmissionError(error: unknown): error is AdmissionError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [BRAND]?: unknown })[BRAND] === true &&
    // A `code` that is not a string is not a key of the registry (a Map) either.
    refusalCodeSpec((error as { code: string }).code) !== undefined
  )
}

// A message is built only from the code's own words, the limit and the option name, never from
// the input, so it cannot echo a caller's bytes and its length is bounded.
function formatMessage(
  what: string,
  limit: number | undefined,
  option: string | undefined,
): string {
  if (limit === undefined) return what
  return option === undefined
    ? `${what} (limit ${limit})`
    : `${what} (limit ${limit}); raise ${option} to admit more`
}
