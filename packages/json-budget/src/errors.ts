import { formatMessage } from './messages.js'
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
   * `spec` is the owner's entry for `code` (each package's own `refuse` passes it from its
   * table); without it the entry registered by `defineRefusalCodes` is used.
   * @throws TypeError when no loaded package defines `code` (a programming error: each package
   * builds its refusals through its own code table, which registers them).
   */
  constructor(
    code: AdmissionCode,
    details: AdmissionErrorDetails = {},
    spec: RefusalCodeSpec | undefined = refusalCodeSpec(code),
  ) {
    const entry = spec
    if (entry === undefined)
      throw new TypeError(`unknown refusal code ${String(code).slice(0, 64)}`)
    super(formatMessage(entry.message, details.limit, details.option ?? entry.option))
    Object.defineProperty(this, BRAND, { value: true })
    this.name = 'AdmissionError'
    this.code = code
    this.status = entry.status
    this.limit = details.limit
    this.observed = details.observed
    this.path = details.path
    this.offset = details.offset
    this.option = details.option ?? entry.option
  }

  /** The plain-data form: code, status, message and the numeric details that are set. */
  toJSON(): AdmissionErrorJson {
    const out: {
      code: AdmissionCode
      status?: number
      message: string
      limit?: number
      observed?: number
      path?: string
      offset?: number
    } = { code: this.code, message: this.message }
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
    typeof (error as { code?: unknown }).code === 'string' &&
    refusalCodeSpec((error as { code: string }).code) !== undefined
  )
}
