import type { AdmissionError } from '@tollgate/json-budget'
import type { BodyAdmission } from './body-admission.js'
import { type AdmitResult, skippedResult } from './core.js'
import { isBusyCode, type RenderRefusal, refusalStatus, renderProblem } from './problem.js'
import { reportBodyRefusal } from './report-refusal.js'

/** A refused web request: the error and a ready `Response` to return. */
export interface WebAdmitFailure {
  readonly ok: false
  readonly error: AdmissionError
  /** The refusal as a web `Response` (problem+json unless `renderRefusal` says otherwise). */
  readonly response: Response
}

/** The outcome of {@link admitWebRequest}. */
export type WebAdmitResult = Extract<AdmitResult, { ok: true }> | WebAdmitFailure

/** The per-request facts and host choices of {@link admitWebRequest}. */
export interface WebAdmitCall {
  /** The key this body is counted under for per-principal shares (see `AdmitCall`). */
  readonly principal?: string | undefined
  /** The pool `principal` belongs to (`ANONYMOUS_POOL` for a caller without a credential; see `AdmitCall`). */
  readonly pool?: string | undefined
  /** Renders a refusal's body; the status and headers stay the same. Default: problem+json. */
  readonly renderRefusal?: RenderRefusal | undefined
  /** Hand on the admitted bytes (`raw`) for this call even when the control's `keepRaw` is off. */
  readonly keepRaw?: boolean | undefined
  /** The route's name as the host configured it, for refusal events (see `AdmitCall.route`). */
  readonly route?: string | undefined
}

/**
 * Admits the JSON body of a web `Request` (undici, Node's global `Request`, Hono, workers)
 * with `body`, the control built once by `bodyAdmission()`. The request's `signal` aborts the
 * read. A refusal carries a ready `Response` with `Connection: close`; the body stream is
 * cancelled, not drained. A refusal is reported to the control's `onRefusal` hook once, as it
 * is returned.
 */
export async function admitWebRequest(
  request: Request,
  body: BodyAdmission,
  call: WebAdmitCall = {},
): Promise<WebAdmitResult> {
  const stream = request.body
  let cancel = () => {
    stream?.cancel().catch(() => {})
  }
  const fail = (error: AdmissionError): WebAdmitFailure => {
    cancel()
    const response = refusalResponse(error, {
      render: call.renderRefusal,
      retryAfterSeconds: body.policy.retryAfterSeconds,
    })
    reportBodyRefusal(body, error, response.status, call)
    return { ok: false, error, response }
  }
  const headers = request.headers
  const decision = body.classify({
    method: request.method,
    contentType: headers.get('content-type'),
    contentLength: headers.get('content-length'),
    contentEncoding: headers.get('content-encoding'),
    hasBody: stream !== null,
  })
  if (decision.action === 'refuse') return fail(decision.error)
  if (decision.action === 'skip') return skippedResult(decision.reason)
  if (stream === null) return skippedResult('no-body')
  const reader = stream.getReader()
  // Cancelled directly on refusal: a generator's return() would wait behind a pending read
  // of a stalled stream and never run.
  cancel = () => {
    reader.cancel().catch(() => {})
  }
  const result = await body.admit(chunksOf(reader), decision, {
    principal: call.principal,
    pool: call.pool,
    signal: request.signal,
    keepRaw: call.keepRaw,
  })
  return result.ok ? result : fail(result.error)
}

async function* chunksOf(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    yield value
  }
}

/**
 * The refusal as a web `Response`: the code's status, the rendered body, `Connection: close`,
 * `Cache-Control: no-store`, and `Retry-After` on a 503.
 */
export function refusalResponse(
  error: AdmissionError,
  options: {
    readonly render?: RenderRefusal | undefined
    readonly retryAfterSeconds?: number
  } = {},
): Response {
  const { contentType, body } = (options.render ?? renderProblem)(error)
  const headers = new Headers({
    'content-type': contentType,
    'cache-control': 'no-store',
    connection: 'close',
  })
  if (isBusyCode(error.code)) {
    headers.set('retry-after', String(options.retryAfterSeconds ?? 1))
  }
  return new Response(body, { status: refusalStatus(error), headers })
}
