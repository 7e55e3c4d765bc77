import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  defineOptions,
  functionOption,
  type OptionsOf,
  oneOfOption,
  option,
  type ResolvedOf,
} from '@tollgate/json-budget'
import type { PrincipalOf } from './principal-shares.js'
import type { RenderRefusal } from './problem.js'

/**
 * What the middleware does with a refusal: `'respond'` answers it, `'next'` hands it to
 * `next(err)`. (Named apart from the `onRefusal` hook of `bodyAdmission()`, which observes
 * refusals and never decides them.)
 */
export type RefusalMode = 'respond' | 'next'

/** The `verify` hook: throw to refuse the body (see {@link ADMISSION_HOST_OPTIONS}). */
export type VerifyBody = (
  req: IncomingMessage,
  res: ServerResponse,
  buf: Buffer,
  encoding: string,
) => void

/** A request filter deciding the media type per request, as body-parser's `type` function. */
export type AcceptRequest = (req: IncomingMessage) => unknown

/** A route name: 1–200 characters, no control characters (it goes to logs as it is). */
export function routeName(value: unknown, name: string): void {
  if (typeof value !== 'string' || !/^[^\u0000-\u001f\u007f]{1,200}$/.test(value)) {
    throw new TypeError(`${name} must be a route name of 1–200 printable characters`)
  }
}

/**
 * The middleware's own options (`admission(body, options)`), declared once; the body's
 * options belong to the control it holds.
 */
export const ADMISSION_HOST_OPTIONS = defineOptions('admission', {
  refusals: option<RefusalMode>({
    default: 'respond',
    check: oneOfOption(['respond', 'next']),
    doc: "`'respond'` answers a refusal and closes the connection; `'next'` calls `next(err)` with `status`, `statusCode`, `type` and `expose` set",
  }),
  renderRefusal: option<RenderRefusal | undefined>({
    default: undefined,
    check: functionOption,
    shown: 'problem+json',
    doc: "renders a refusal's body; the status and connection handling stay the same",
  }),
  verify: option<VerifyBody | undefined>({
    default: undefined,
    // body-parser's own wording, which code that checks its configuration errors matches on.
    check: (value) => {
      if (typeof value !== 'function') throw new TypeError('option verify must be function')
    },
    doc: '`verify(req, res, buf, encoding)` with the admitted bytes before `req.body` is set; throwing refuses with 403 `ERR_BODY_VERIFY_FAILED` (or the thrown 4xx/5xx `status`)',
  }),
  accept: option<AcceptRequest | undefined>({
    default: undefined,
    check: functionOption,
    doc: "`(req) => boolean` deciding the media type per request (body-parser's `type` function); a body it accepts is read whatever its type",
  }),
  route: option<string | undefined>({
    default: undefined,
    check: routeName,
    shown: 'none',
    doc: "the name of the route the middleware guards (`'notes'`, or the path pattern it is mounted on), reported as `route` in refusal events; never taken from the request",
  }),
  principal: option<PrincipalOf | undefined>({
    default: undefined,
    check: functionOption,
    doc: "the key each request's body is counted under for per-principal shares (`undefined`: no share)",
  }),
})

/** Options of the middleware host (see {@link ADMISSION_HOST_OPTIONS}). */
export type AdmissionHostOptions = OptionsOf<typeof ADMISSION_HOST_OPTIONS.rows>

/** The middleware host's options resolved: every field set. */
export type AdmissionHost = ResolvedOf<typeof ADMISSION_HOST_OPTIONS.rows>
