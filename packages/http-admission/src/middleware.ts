import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AdmissionError } from '@tollgate/json-budget'
import type { BodyAdmission } from './body-admission.js'
import { setBodyParserBody } from './body-parser-body.js'
import { isReviverError } from './body-scanner.js'
import { admissionError } from './codes.js'
import { toBodyParserError, toHttpError } from './http-error.js'
import { matchMediaType } from './media-type.js'
import {
  ADMISSION_HOST_OPTIONS,
  type AdmissionHost,
  type AdmissionHostOptions,
} from './middleware-options.js'
import { nodeRequestHead } from './node.js'
import { principalKeyOf } from './principal-shares.js'
import { reportBodyRefusal } from './report-refusal.js'
import { closeAfterResponse, sendRefusal } from './respond.js'

/** The request fields the middleware sets, as `express.json()` and body-parser set them. */
export interface AdmittedRequest extends IncomingMessage {
  /** The parsed body; left as it was when the request was passed through. */
  body?: unknown
  /** body-parser's "already parsed" flag: set on admission, and honoured (skipped) when set. */
  _body?: boolean
  /** The admitted bytes, when `keepRaw` is set. */
  rawBody?: Buffer
}

/** An Express 5 / Connect middleware. */
export type AdmissionMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void

/**
 * JSON body admission as Express 5 / Connect middleware (no import of Express), holding
 * `body`, a control built once by `bodyAdmission()` (one per route gives each route its own
 * limits), plus the middleware's own options ({@link ADMISSION_HOST_OPTIONS}). An admitted body
 * lands in `req.body` (and `req._body = true`, so a later body parser skips it); a refusal is
 * answered with its status and a problem+json body and the connection is closed without
 * reading the rest, or, with `refusals: 'next'`, handed to `next(err)` with tollgate's status
 * (422 for a parse or structure refusal) and body-parser's `type`, `statusCode` and `expose`.
 * For `express.json()`'s statuses and defaults, use `json()`. Each refusal is reported once to
 * the control's `onRefusal` hook (a function, an option of `bodyAdmission()`), with the status
 * answered, after the answer is written or handed to `next(err)`.
 * @throws TypeError at construction on bad host options (`onRefusal` among them: the mode is
 *   `refusals`), or a `body` that is not a control.
 */
export function admission(
  body: BodyAdmission,
  options?: AdmissionHostOptions,
): AdmissionMiddleware {
  if (typeof options === 'object' && options !== null && Object.hasOwn(options, 'onRefusal')) {
    // The mode was called `onRefusal` in earlier releases; the hook of that name only observes.
    throw new TypeError(
      "admission: the middleware's mode is `refusals: 'respond' | 'next'`; the `onRefusal` hook is an option of bodyAdmission()",
    )
  }
  return createAdmissionMiddleware(body, ADMISSION_HOST_OPTIONS.resolve(options), TOLLGATE_STYLE)
}

const EMPTY = Buffer.alloc(0)

/**
 * How a middleware answers around the same admission: tollgate's own way ({@link admission})
 * or `express.json()`'s (`json()`), where `req.body` starts `undefined`, an empty body of the
 * accepted type is `{}`, and refusals carry body-parser's statuses and messages.
 * @internal
 */
export interface MiddlewareStyle {
  /** Sets `req.body = undefined` before reading, and answers an empty body as `{}`. */
  readonly bodyParser: boolean
}

/** tollgate's answers (see {@link MiddlewareStyle}). @internal */
export const TOLLGATE_STYLE: MiddlewareStyle = Object.freeze({ bodyParser: false })

/** `express.json()`'s answers (see {@link MiddlewareStyle}). @internal */
export const BODY_PARSER_STYLE: MiddlewareStyle = Object.freeze({ bodyParser: true })

/**
 * The middleware of {@link admission} and of `json()`: `body` admits, `host` holds the
 * middleware's resolved options, `style` says how it answers.
 * @internal
 */
export function createAdmissionMiddleware(
  body: BodyAdmission,
  host: AdmissionHost,
  style: MiddlewareStyle,
): AdmissionMiddleware {
  if (
    typeof body !== 'object' ||
    body === null ||
    typeof body.classify !== 'function' ||
    typeof body.admit !== 'function'
  ) {
    throw new TypeError('admission takes a control built by bodyAdmission()')
  }
  const o = body.policy
  const bodyParser = style.bodyParser
  // verify needs the bytes; they are handed to it and kept as req.rawBody only with keepRaw.
  const exposeRaw = o.keepRaw
  const keepRaw = host.verify !== undefined && !exposeRaw
  const retryAfterSeconds = o.retryAfterSeconds
  const accept = host.accept

  return function admissionMiddleware(req, res, next) {
    const request = req as AdmittedRequest
    // Already read by an earlier parser (body-parser 1 sets _body; body-parser 2 checks that
    // the stream has ended).
    if (request._body === true || request.readableEnded) {
      next()
      return
    }
    if (bodyParser) setBodyParserBody(request)

    let principal: string | undefined
    // The event's principal: the one the admission counted, or, for a refusal decided before a
    // principal was asked for, the host's answer now (a host that throws reports none).
    const where = () => {
      if (principal === undefined && host.principal !== undefined) {
        try {
          principal = principalKeyOf(host.principal, req)
        } catch {
          // The host's own error; the refusal stands without a principal.
        }
      }
      return { principal, route: host.route }
    }
    const refuse = (error: AdmissionError): void => {
      if (host.refusals === 'next') {
        // The unread rest of the body must never be parsed as a next request, whatever the
        // app's error handler does with the headers.
        closeAfterResponse(res)
        const dressed = bodyParser
          ? toBodyParserError(error, retryAfterSeconds)
          : toHttpError(error, retryAfterSeconds)
        next(dressed)
        reportBodyRefusal(body, error, dressed.status, where())
      } else {
        sendRefusal(res, error, { render: host.renderRefusal, retryAfterSeconds })
        reportBodyRefusal(body, error, undefined, where())
      }
    }
    const admit = (value: unknown, raw: Buffer): void => {
      if (host.verify !== undefined) {
        try {
          host.verify(request, res, raw, 'utf-8')
        } catch (thrown) {
          if (bodyParser && typeof thrown === 'object' && thrown !== null) {
            closeAfterResponse(res)
            const dressed = dressThrown(thrown, 403, 'entity.verify.failed')
            next(dressed)
            reportBodyRefusal(
              body,
              admissionError('ERR_BODY_VERIFY_FAILED'),
              dressed.status,
              where(),
            )
          } else {
            refuse(verifyFailure(thrown))
          }
          return
        }
      }
      request.body = value
      request._body = true
      if (exposeRaw) request.rawBody = raw
      next()
    }

    const head = nodeRequestHead(req)
    const hasBody = head.hasBody
    const passed = o.passMethods.includes((req.method ?? 'GET').toUpperCase())
    if (accept !== undefined && hasBody && !passed) {
      let accepted: unknown
      try {
        accepted = accept(req)
      } catch (error) {
        next(error)
        return
      }
      if (!accepted) {
        if (o.otherTypes === 'pass') next()
        else refuse(admissionError('ERR_BODY_MEDIA_TYPE'))
        return
      }
    }

    const decision = body.classify(accept === undefined ? head : { ...head, typeAccepted: true })
    if (decision.action === 'admit') {
      try {
        principal = principalKeyOf(host.principal, req)
      } catch (error) {
        next(error)
        return
      }
    }
    body.admit(req, decision, { principal, keepRaw }).then(
      (result) => {
        if (!result.ok) {
          refuse(result.error)
        } else if (result.skipped === undefined) {
          // An empty body: body-parser answers {} ("a common client-side mistake"); tollgate
          // leaves it undefined.
          const value = bodyParser && result.bytes === 0 ? {} : result.value
          admit(value, result.raw ?? EMPTY)
        } else if (bodyParser && result.skipped === 'no-body' && hasBody && !passed) {
          // `Content-Length: 0` of the accepted type is an empty body, not an absent one.
          let matched: boolean
          try {
            matched =
              accept !== undefined ||
              matchMediaType(req.headers['content-type'], o.types) === 'match'
          } catch (error) {
            refuse(error as AdmissionError)
            return
          }
          if (matched) admit({}, EMPTY)
          else next()
        } else {
          next()
        }
      },
      (error: unknown) => {
        // A reviver's exception: body-parser answers it as a parse failure.
        if (bodyParser && isReviverError(error)) {
          closeAfterResponse(res)
          next(dressThrown(error as object, 400, 'entity.parse.failed'))
        } else {
          next(error)
        }
      },
    )
  }
}

/** The refusal of a `verify` hook that threw, with the thrown error's 4xx/5xx `status` if any. */
function verifyFailure(thrown: unknown): AdmissionError {
  const error = admissionError('ERR_BODY_VERIFY_FAILED')
  const status = statusOf(thrown)
  if (status !== undefined) Object.defineProperty(error, 'status', { value: status })
  // Kept for the app's logs; the refusal itself is built from the code alone.
  Object.defineProperty(error, 'cause', { value: thrown, configurable: true, writable: true })
  return error
}

/** Dresses an app's own error as http-errors would: its valid status or `status`, and a type. */
function dressThrown(thrown: object, status: number, type: string): { status: number } {
  const own = thrown as { status?: unknown; statusCode?: unknown; type?: unknown }
  const final = statusOf(thrown) ?? status
  return Object.assign(thrown, {
    status: final,
    statusCode: final,
    expose: final < 500,
    type: typeof own.type === 'string' ? own.type : type,
  })
}

function statusOf(thrown: unknown): number | undefined {
  if (typeof thrown !== 'object' || thrown === null) return undefined
  const { status, statusCode } = thrown as { status?: unknown; statusCode?: unknown }
  const value = typeof status === 'number' ? status : statusCode
  return typeof value === 'number' && Number.isInteger(value) && value >= 400 && value < 600
    ? value
    : undefined
}
