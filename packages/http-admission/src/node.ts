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
export async function admitNodeRequest(
  req: IncomingMessage,
  options?: HttpAdmissionOptions | ResolvedHttpAdmissionOptions,
): Promise<AdmitResult> {
  const o = resolveHttpAdmissionOptions(options)
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
    if (isAdmissionError(error)) return { ok: false, error }
    throw error
  }
  if ('skip' in plan) {
    return skippedResult(plan.skip)
  }
  const principal = principalKeyOf(o.principal, req)
  return admitBody(req, o, principal === undefined ? plan.context : { ...plan.context, principal })
}
