import { type AdmissionCode, type AdmissionError, refusalCodeSpec } from '@tollgate/json-budget'

/**
 * The `application/problem+json` body (RFC 9457) of a refusal. Every field comes from the
 * error's code and numbers, never from the request, so a refusal is small, the same size
 * whatever was sent, and cannot echo the caller's bytes.
 */
export interface AdmissionProblem {
  /** `urn:tollgate:error:<CODE>`. */
  readonly type: string
  /** The HTTP reason phrase of the status. */
  readonly title: string
  /** The HTTP status answered (400 for a client abort, which is rarely seen by anyone). */
  readonly status: number
  /** The stable refusal code, e.g. `ERR_BODY_TOO_LARGE`. */
  readonly code: AdmissionCode
  /** The bounded message: what was refused and which option admits more. */
  readonly detail: string
  /** The limit that was passed, when the code has one. */
  readonly limit?: number
}

/** A rendered refusal body: what {@link RenderRefusal} returns. */
export interface RefusalBody {
  /** The `Content-Type` header. */
  readonly contentType: string
  /** The body bytes or text. */
  readonly body: string | Uint8Array
}

/**
 * Renders the body of a refusal. The default is problem+json ({@link renderProblem});
 * `@tollgate/mcp-transport` passes one that answers with a JSON-RPC error instead, and keeps
 * the status, `Retry-After` and connection closing of {@link sendRefusal}.
 */
export type RenderRefusal = (error: AdmissionError) => RefusalBody

/** The status a refusal is answered with: the code's status, or 400 for a client abort. */
export function refusalStatus(error: AdmissionError): number {
  return error.status ?? 400
}

/** The problem+json object for `error` (see {@link AdmissionProblem}). */
export function toProblem(error: AdmissionError): AdmissionProblem {
  const status = refusalStatus(error)
  const problem: {
    type: string
    title: string
    status: number
    code: AdmissionCode
    detail: string
    limit?: number
  } = {
    type: `urn:tollgate:error:${error.code}`,
    title: refusalCodeSpec(error.code)?.title ?? 'Error',
    status,
    code: error.code,
    detail: error.message,
  }
  if (error.limit !== undefined) problem.limit = error.limit
  return problem
}

/** The default {@link RenderRefusal}: `application/problem+json` from {@link toProblem}. */
export const renderProblem: RenderRefusal = (error) => ({
  contentType: 'application/problem+json',
  body: JSON.stringify(toProblem(error)),
})

/**
 * Whether `code` is a "try again later" refusal answered 503 with `Retry-After`: the in-flight
 * budget spent (`ERR_ADMISSION_BUSY`) or one principal's share of it spent
 * (`ERR_ADMISSION_PRINCIPAL_BUSY`).
 */
export function isBusyCode(code: AdmissionCode): boolean {
  return code === 'ERR_ADMISSION_BUSY' || code === 'ERR_ADMISSION_PRINCIPAL_BUSY'
}
