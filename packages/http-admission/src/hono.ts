// The Hono adapter, a subpath export (`@tollgate/http-admission/hono`): importing the package
// root never loads Hono, and this entry loads `hono/http-exception` only on a first refusal.
import type { ServerResponse } from 'node:http'
import { type FrameworkAdmissionOptions, HONO_ADMISSION_OPTIONS } from './adapter-options.js'
import type { BodyAdmission } from './body-admission.js'
import { requireControl } from './narrow-control.js'
import { closeAfterResponse } from './respond.js'
import { admitWebRequest } from './web.js'

export { type FrameworkAdmissionOptions, HONO_ADMISSION_OPTIONS } from './adapter-options.js'

// The little of Hono the middleware uses, written structurally so its declarations need no
// Hono types installed (Hono is an optional peer); Hono's `Context` satisfies it.

/** The parts of a Hono context the middleware uses. */
export interface HonoContextLike {
  readonly req: { readonly raw: Request; bodyCache: object }
  /** `@hono/node-server` puts the Node response here as `outgoing`. */
  readonly env?: unknown
  /** The context variables (`c.set`); `principal` is read from them. */
  readonly var?: unknown
}

/** The middleware {@link honoAdmission} returns: `app.use(...)` or a route's handler list. */
export type HonoAdmissionMiddleware = (
  c: HonoContextLike,
  next: () => Promise<void>,
) => Promise<void>

type HTTPExceptionClass = typeof import('hono/http-exception').HTTPException
let HTTPException: HTTPExceptionClass | undefined

/**
 * Hono middleware that admits the JSON body with `body`, a control built once by
 * `bodyAdmission()`: `app.post('/notes', honoAdmission(notes), handler)`. An admitted body
 * seeds Hono's body cache, so `c.req.json()`, `c.req.text()` and `validator('json', ...)` read
 * the admitted bytes instead of the consumed stream (each still runs its own `JSON.parse`).
 * A refusal is thrown as Hono's `HTTPException` carrying the ready problem+json `Response`
 * (status of the code, `Connection: close`, `Retry-After` on a 503), which Hono's default error
 * handler answers as it is and an `app.onError` handler can inspect (`err.getResponse()`); the
 * body stream is cancelled, not drained, and on `@hono/node-server` the connection is closed
 * after the answer without reading the rest. Methods in `passMethods`, requests without a body
 * and, with `otherTypes: 'pass'`, other media types pass through unread. The principal of the
 * per-principal shares is the context variable `principal` (`c.set('principal', key)` in an
 * earlier middleware) when it is a string. Each refusal is reported once to the control's
 * `onRefusal` hook, with that principal's key (`refusalPrincipal`) and `options.route`
 * ({@link HONO_ADMISSION_OPTIONS}: the name the host gives the route, never the request's path).
 * @throws TypeError at construction when `body` is not a control, or on a bad or unknown option.
 */
export function honoAdmission(
  body: BodyAdmission,
  options?: FrameworkAdmissionOptions,
): HonoAdmissionMiddleware {
  requireControl('honoAdmission', body)
  const { route } = HONO_ADMISSION_OPTIONS.resolve(options)
  return async (c, next) => {
    const principal = (c.var as { principal?: unknown } | undefined)?.principal
    const result = await admitWebRequest(c.req.raw, body, {
      principal: typeof principal === 'string' ? principal : undefined,
      keepRaw: true,
      route,
    })
    if (!result.ok) {
      const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing
      if (outgoing !== undefined && typeof outgoing.setHeader === 'function') {
        closeAfterResponse(outgoing)
      }
      HTTPException ??= (await import('hono/http-exception')).HTTPException
      throw new HTTPException(result.response.status as 400, { res: result.response })
    }
    if (result.skipped === undefined && result.raw !== undefined) {
      // The bytes were validated as UTF-8 JSON; Hono's json() parses the cached text. Hono
      // keeps promises in its cache.
      const cache = c.req.bodyCache as { text?: Promise<string> }
      cache.text = Promise.resolve(result.raw.toString('utf8'))
    }
    await next()
  }
}
