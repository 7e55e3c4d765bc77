import type { IncomingMessage, ServerResponse } from 'node:http'
import { toHttpError } from './http-error.js'
import { admitNodeRequest } from './node.js'
import { type HttpAdmissionOptions, resolveOptions } from './options.js'
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
 * JSON body admission as Express 5 / Connect middleware (no import of Express). Mount it per
 * route to give each route its own limits. An admitted body lands in `req.body` (and
 * `req._body = true`, so a later body parser skips it); a refusal is answered with its status
 * and a problem+json body and the connection is closed without reading the rest, or, with
 * `onRefusal: 'next'`, handed to `next(err)` with body-parser's error properties.
 * @throws TypeError at construction on bad options (see `resolveOptions`).
 */
export function admission(options?: HttpAdmissionOptions): AdmissionMiddleware {
  const o = resolveOptions(options)
  return function admissionMiddleware(req, res, next) {
    const request = req as AdmittedRequest
    // Already read by an earlier parser (body-parser 1 sets _body; body-parser 2 checks that
    // the stream has ended).
    if (request._body === true || request.readableEnded) {
      next()
      return
    }
    admitNodeRequest(request, o).then((result) => {
      if (result.ok) {
        if (result.skipped === undefined) {
          request.body = result.value
          request._body = true
          if (result.raw !== undefined) request.rawBody = result.raw
        }
        next()
      } else if (o.onRefusal === 'next') {
        // The unread rest of the body must never be parsed as a next request, whatever the
        // app's error handler does with the headers.
        closeAfterResponse(res)
        next(toHttpError(result.error, o.retryAfterSeconds))
      } else {
        sendRefusal(res, result.error, {
          render: o.renderRefusal,
          retryAfterSeconds: o.retryAfterSeconds,
        })
      }
    }, next)
  }
}
