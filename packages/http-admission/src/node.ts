import type { IncomingMessage } from 'node:http'
import type { AdmitCall, BodyAdmission, RequestHead } from './body-admission.js'
import type { AdmitResult } from './core.js'
import { reportBodyRefusal } from './report-refusal.js'

/** The head of a `node:http` request, as a body admission decides on it. */
export function nodeRequestHead(req: IncomingMessage): RequestHead {
  const headers = req.headers
  return {
    method: req.method,
    contentType: headers['content-type'],
    contentLength: headers['content-length'],
    contentEncoding: headers['content-encoding'],
    hasBody: headers['transfer-encoding'] !== undefined || headers['content-length'] !== undefined,
  }
}

/**
 * Admits the JSON body of a `node:http` request with `body`, the control built once by
 * `bodyAdmission()`; `call` holds the per-request facts (the principal, a signal). Methods in
 * `passMethods`, requests without a body and (with `otherTypes: 'pass'`) other media types come
 * back `{ ok: true, skipped }` with the body unread. A refusal leaves the request paused, not
 * drained: answer it with `sendRefusal(res, result.error)`, which closes the connection. A
 * refusal is reported to the control's `onRefusal` hook once, as it is returned, with
 * `call.route` and the key of `call.principal` (see `refusalPrincipal`).
 */
export function admitNodeRequest(
  req: IncomingMessage,
  body: BodyAdmission,
  call?: AdmitCall,
): Promise<AdmitResult> {
  // Not an async function: the body's own promise is handed back as it is, one promise and
  // its microtask hops fewer per request. Whatever throws here still comes back as a rejection.
  try {
    const admitted = body.admit(req, body.classify(nodeRequestHead(req)), call)
    if (body.policy.onRefusal === undefined) return admitted
    return admitted.then((result) => {
      if (!result.ok) reportBodyRefusal(body, result.error, undefined, call)
      return result
    })
  } catch (error) {
    return Promise.reject(error)
  }
}
