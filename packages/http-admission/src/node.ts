import type { IncomingMessage } from 'node:http'
import { isAdmissionError } from '@tollgate/json-budget'
import { type AdmitResult, admitBody, skippedResult } from './core.js'
import type { HttpAdmissionOptions, ResolvedHttpAdmissionOptions } from './options.js'
import { principalKeyOf } from './principal-shares.js'
import { classifyHead } from './request-head.js'
import { resolveHttpAdmissionOptions } from './resolve-options.js'

/**
 * Admits the JSON body of a `node:http` request. Methods in `passMethods`, requests without a
 * body and (with `otherTypes: 'pass'`) other media types come back `{ ok: true, skipped }` with
 * the body unread. A refusal leaves the request paused, not drained: answer it with
 * `sendRefusal(res, result.error)`, which closes the connection.
 */
export function admitNodeRequest(
  req: IncomingMessage,
  options?: HttpAdmissionOptions | ResolvedHttpAdmissionOptions,
): Promise<AdmitResult> {
  // Not an async function: the body's own promise is handed back as it is, one promise and
  // its microtask hops fewer per request. Whatever throws here still comes back as a rejection.
  try {
    return admitHead(req, resolveHttpAdmissionOptions(options))
  } catch (error) {
    return Promise.reject(error)
  }
}

function admitHead(req: IncomingMessage, o: ResolvedHttpAdmissionOptions): Promise<AdmitResult> {
  const headers = req.headers
  let plan: ReturnType<typeof classifyHead>
  try {
    plan = classifyHead(
      {
        method: req.method,
        contentType: headers['content-type'],
        contentLength: headers['content-length'],
        contentEncoding: headers['content-encoding'],
        hasBody:
          headers['transfer-encoding'] !== undefined || headers['content-length'] !== undefined,
      },
      o,
    )
  } catch (error) {
    if (isAdmissionError(error)) return Promise.resolve({ ok: false, error })
    throw error
  }
  if ('skip' in plan) {
    return Promise.resolve(skippedResult(plan.skip))
  }
  const principal = principalKeyOf(o.principal, req)
  return admitBody(req, o, principal === undefined ? plan.context : { ...plan.context, principal })
}
