import type { AdmissionError } from '@tollgate/json-budget'
import { isAdmissionError } from '@tollgate/json-budget'
import { type AdmitResult, admitBody, skippedResult } from './core.js'
import type { HttpAdmissionOptions, ResolvedHttpAdmissionOptions } from './options.js'
import { principalKeyOf } from './principal-shares.js'
import { isBusyCode, type RenderRefusal, refusalStatus, renderProblem } from './problem.js'
import { classifyHead } from './request-head.js'
import { resolveHttpAdmissionOptions } from './resolve-options.js'

/** A refused web request: the error and a ready `Response` to return. */
export interface WebAdmitFailure {
  readonly ok: false
  readonly error: AdmissionError
  /** The refusal as a web `Response` (problem+json unless `renderRefusal` says otherwise). */
  readonly response: Response
}

/** The outcome of {@link admitWebRequest}. */
export type WebAdmitResult = Extract<AdmitResult, { ok: true }> | WebAdmitFailure

/**
 * Admits the JSON body of a web `Request` (undici, Node's global `Request`, Hono, workers),
 * with the same policy as the other adapters. The request's `signal` aborts the read. A
 * refusal carries a ready `Response` with `Connection: close`; the body stream is cancelled,
 * not drained.
 */
export async function admitWebRequest(
  request: Request,
  options?: HttpAdmissionOptions | ResolvedHttpAdmissionOptions,
): Promise<WebAdmitResult> {
  const o = resolveHttpAdmissionOptions(options)
  let cancel = () => {
    request.body?.cancel().catch(() => {})
  }
  const fail = (error: AdmissionError): WebAdmitFailure => {
    cancel()
    return {
      ok: false,
      error,
      response: refusalResponse(error, {
        render: o.renderRefusal,
        retryAfterSeconds: o.retryAfterSeconds,
      }),
    }
  }
  const headers = request.headers
  let plan: ReturnType<typeof classifyHead>
  try {
    plan = classifyHead(
      {
        method: request.method,
        contentType: headers.get('content-type'),
        contentLength: headers.get('content-length'),
        contentEncoding: headers.get('content-encoding'),
        hasBody: request.body !== null,
      },
      o,
    )
  } catch (error) {
    if (isAdmissionError(error)) return fail(error)
    throw error
  }
  if ('skip' in plan) {
    return skippedResult(plan.skip)
  }
  const body = request.body
  if (body === null) {
    return skippedResult('no-body')
  }
  const reader = body.getReader()
  // Cancelled directly on refusal: a generator's return() would wait behind a pending read
  // of a stalled stream and never run.
  cancel = () => {
    reader.cancel().catch(() => {})
  }
  const principal = principalKeyOf(o.principal, request)
  const context = { ...plan.context, signal: request.signal }
  const result = await admitBody(
    chunksOf(reader),
    o,
    principal === undefined ? context : { ...context, principal },
  )
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
