// The Koa adapter, a subpath export (`@tollgate/http-admission/koa`): importing the package root
// never loads it, and it imports nothing of Koa at run time.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type FrameworkAdmissionOptions, KOA_ADMISSION_OPTIONS } from './adapter-options.js'
import type { BodyAdmission } from './body-admission.js'
import { requireControl } from './narrow-control.js'
import { admitNodeRequest } from './node.js'
import { sendRefusal } from './respond.js'

/** The request fields {@link koaAdmission} sets, as `koa-bodyparser` and `@koa/bodyparser` do. */
export interface KoaAdmittedRequest {
  /** The parsed body; `undefined` when the request was passed through unread. */
  body?: unknown
  /** The admitted bytes, when the control's `keepRaw` is on. */
  rawBody?: Buffer
}

export { type FrameworkAdmissionOptions, KOA_ADMISSION_OPTIONS } from './adapter-options.js'

// The little of Koa the middleware uses, written structurally so its declarations need no Koa
// types installed (Koa is an optional peer); Koa's `Context` satisfies it.

/** The parts of a Koa context the middleware uses. */
export interface KoaContextLike {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly request: object
  /** `ctx.state`; `principal` is read from it. */
  readonly state?: unknown
  /** Set to `false` when the middleware has answered a refusal itself. */
  respond?: boolean | undefined
}

/** The middleware {@link koaAdmission} returns: `app.use(...)` or a router's handler list. */
export type KoaAdmissionMiddleware = (
  ctx: KoaContextLike,
  next: () => Promise<unknown>,
) => Promise<void>

/**
 * Koa 2/3 middleware that admits the JSON body with `body`, a control built once by
 * `bodyAdmission()`: `app.use(koaAdmission(bodyAdmission()))`, or per route with a router. An
 * admitted body is `ctx.request.body` (and `ctx.request.rawBody` with `keepRaw`), as Koa's
 * body parsers set it. A refusal is answered at once, bypassing Koa's response
 * (`ctx.respond = false`): the status of the code, a problem+json body that never carries the
 * caller's bytes, `Connection: close`, `Retry-After` on a 503, and the connection closed
 * without reading the rest of the body; later middleware does not run. Methods in
 * `passMethods`, requests without a body and, with `otherTypes: 'pass'`, other media types pass
 * through unread. The principal of the per-principal shares is `ctx.state.principal` when an
 * earlier middleware set it to a string. Each refusal is reported once to the control's
 * `onRefusal` hook, with that principal's key (`refusalPrincipal`) and `options.route`
 * ({@link KOA_ADMISSION_OPTIONS}: the name the host gives the route, never the request's path).
 * @throws TypeError at construction when `body` is not a control, or on a bad or unknown option.
 */
export function koaAdmission(
  body: BodyAdmission,
  options?: FrameworkAdmissionOptions,
): KoaAdmissionMiddleware {
  requireControl('koaAdmission', body)
  const { route } = KOA_ADMISSION_OPTIONS.resolve(options)
  const retryAfterSeconds = body.policy.retryAfterSeconds
  return async (ctx, next) => {
    const principal: unknown = (ctx.state as { principal?: unknown } | undefined)?.principal
    const result = await admitNodeRequest(ctx.req, body, {
      principal: typeof principal === 'string' ? principal : undefined,
      route,
    })
    if (!result.ok) {
      ctx.respond = false
      sendRefusal(ctx.res, result.error, { retryAfterSeconds })
      return
    }
    if (result.skipped === undefined) {
      const request = ctx.request as KoaAdmittedRequest
      request.body = result.value
      if (result.raw !== undefined) request.rawBody = result.raw
    }
    await next()
  }
}
