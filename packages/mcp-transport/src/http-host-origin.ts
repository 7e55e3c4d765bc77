// Step 1 of the Streamable HTTP path: DNS-rebinding protection from the head alone. A page on
// `evil.example` that resolves to 127.0.0.1 reaches a loopback server with its own name in
// `Host` and `Origin`; a valid credential in the request does not make it the user's page.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AdmissionError, RefusalWhere } from '@tollgate/json-budget'
import { admissionError } from './codes.js'
import { isLoopbackHost, type McpHttpPolicy } from './http-options.js'
import { refuseMcpRequest, reportStepRefusal } from './http-refusal.js'

/**
 * Checks `Host` and `Origin` against the resolved allow-lists. A request without `Origin` (not
 * from a browser) passes the Origin check.
 * @returns the refusal (`ERR_HOST_NOT_ALLOWED` / `ERR_ORIGIN_NOT_ALLOWED`), or `undefined` when
 *   the request may proceed.
 */
export function checkHostAndOrigin(
  req: IncomingMessage,
  policy: McpHttpPolicy,
): AdmissionError | undefined {
  if (policy.allowedHosts !== undefined) {
    const host = req.headers.host
    let name: string | undefined
    try {
      name = host === undefined ? undefined : new URL(`http://${host}`).hostname
    } catch {
      name = undefined
    }
    if (name === undefined || !policy.allowedHosts.includes(name)) {
      return admissionError('ERR_HOST_NOT_ALLOWED')
    }
  }
  const allowed = policy.allowedOrigins
  const origin = req.headers.origin
  if (allowed !== undefined && origin !== undefined) {
    let url: URL | undefined
    try {
      url = new URL(origin)
    } catch {
      url = undefined
    }
    const ok =
      url !== undefined &&
      url.origin !== 'null' &&
      (allowed === 'loopback'
        ? (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname)
        : allowed.includes(url.origin))
    if (!ok) return admissionError('ERR_ORIGIN_NOT_ALLOWED')
  }
  return undefined
}

/**
 * The Host/Origin step: `true` when the request may go on; otherwise it has answered 403 with a
 * JSON-RPC error (`data.code` `ERR_HOST_NOT_ALLOWED` or `ERR_ORIGIN_NOT_ALLOWED`, the sent name
 * never echoed) and closed the connection unread. Validation is on by default for a loopback
 * `host`. Internal: `McpHttpAdmission.guardHostAndOrigin` calls it with the control's policy.
 */
export function guardHostAndOrigin(
  req: IncomingMessage,
  res: ServerResponse,
  policy: McpHttpPolicy,
  where?: RefusalWhere,
): boolean {
  const denied = checkHostAndOrigin(req, policy)
  if (denied === undefined) return true
  refuseMcpRequest(res, denied, policy)
  reportStepRefusal(policy.onRefusal, denied, 'mcp-host-origin', where)
  return false
}
