// Step 3 of the Streamable HTTP path: body admission, once the cheap checks on the head have
// passed (the app's route, credential and session slot included), so an unauthenticated or
// misrouted body is never read.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type AdmitCall, admitNodeRequest } from '@tollgate/http-admission'
import type { AdmissionError, RefusalWhere } from '@tollgate/json-budget'
import { admissionError } from './codes.js'
import { assertBodyUnread } from './consumed-body.js'
import { headBodyCapOf } from './head-body-cap.js'
import type { McpHttpPolicy } from './http-options.js'
import { takeDeferredVersionRefusal, VERSION_FACTS } from './http-protocol-version.js'
import {
  codeOfRpcError,
  jsonRpcRequestIdOf,
  refuseJsonRpcUnread,
  refuseMcpRequest,
  reportStepRefusal,
} from './http-refusal.js'

/** What the body step gives back: the parsed body, or the refusal it has answered. */
export type AdmittedMcpBody =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: AdmissionError }

/**
 * The body step for a POST: admits the body with the body control the policy holds (the MCP cap,
 * 4 MiB default, never above 64 MiB; a batch is one body: bytes actually received counted, the
 * preflight running as chunks arrive, deadlines, the in-flight budget) and returns the parsed
 * value. `call.principal` is the key the body counts against for per-principal shares (the
 * caller's credential, known once the head has been authenticated; an anonymous caller's
 * `callerKeys` key with `pool: 'anonymous'`); unset, no share applies.
 * A byte cap `guardMcpHead` found for the tool the head names (on the same `res`) caps the
 * body lower, counted as it arrives. A POST whose `MCP-Protocol-Version` `guardProtocolVersion`
 * found unsupported is refused here once parsed (400 `-32020`, `-32022` or `-32000`, with the
 * request's `id`; `error.code` `ERR_MCP_PROTOCOL_VERSION`). On a refusal it has already answered (a JSON-RPC error with the status of
 * the code: 413, 422, 415, 408, 503 with `Retry-After`) and closed the connection without
 * reading the rest. An empty body is refused as `ERR_JSON_SYNTAX` (it is not a JSON text).
 * Internal: `McpHttpAdmission.admitMcpBody` calls it with the control's policy.
 * @throws McpBodyAlreadyReadError when another parser (`express.json()`) already read the
 *   body.
 */
export async function admitMcpBody(
  req: IncomingMessage,
  res: ServerResponse,
  policy: McpHttpPolicy,
  call?: Pick<AdmitCall, 'principal' | 'pool' | 'signal' | 'route'>,
  where?: RefusalWhere,
): Promise<AdmittedMcpBody> {
  assertBodyUnread(req)
  // The cap the head step found for the tool this request names (`guardMcpHead`), if any.
  const cap = headBodyCapOf(res)
  const result = await admitNodeRequest(
    req,
    policy.body,
    cap === undefined ? call : { ...call, maxBytes: cap },
  )
  // An empty POST is not a JSON text; refusing it here keeps the SDK from reading again.
  const error = result.ok
    ? result.value === undefined
      ? admissionError('ERR_JSON_SYNTAX')
      : undefined
    : result.error
  if (error === undefined) {
    const value = (result as { value: unknown }).value
    // An unsupported MCP-Protocol-Version, which guardProtocolVersion left for after the body:
    // answered here, with the request's id, before anything else sees the body.
    const version = takeDeferredVersionRefusal(req, value)
    if (version === undefined) return { ok: true, value }
    refuseJsonRpcUnread(res, 400, version, {}, jsonRpcRequestIdOf(value))
    // A -32020 (header and `_meta` disagree) is a mismatch; any other answer a version refusal.
    const code = codeOfRpcError(version, VERSION_FACTS.code)
    reportStepRefusal(
      policy.onRefusal,
      code === VERSION_FACTS.code ? VERSION_FACTS : { code, status: 400 },
      'mcp-protocol-version',
      where,
    )
    return { ok: false, error: admissionError('ERR_MCP_PROTOCOL_VERSION') }
  }
  refuseMcpRequest(res, error, policy)
  reportStepRefusal(policy.onRefusal, error, 'mcp-body', where)
  return { ok: false, error }
}
