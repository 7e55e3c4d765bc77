// The Fastify adapter, a subpath export (`@tollgate/http-admission/fastify`): importing the
// package root never loads it, and it imports nothing of Fastify at run time.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AdmissionError } from '@tollgate/json-budget'
import { FASTIFY_ADMISSION_OPTIONS, type FrameworkAdmissionOptions } from './adapter-options.js'
import type { BodyAdmission } from './body-admission.js'
import type { AdmitSuccess } from './core.js'
import { type HttpAdmissionError, toHttpError } from './http-error.js'
import { narrowControl, requireControl } from './narrow-control.js'
import { nodeRequestHead } from './node.js'
import { reportBodyRefusal } from './report-refusal.js'
import { closeAfterResponse } from './respond.js'

export {
  FASTIFY_ADMISSION_OPTIONS,
  type FrameworkAdmissionOptions,
} from './adapter-options.js'

// The little of Fastify the plugin uses, written structurally so its declarations need no
// Fastify types installed (Fastify is an optional peer); `FastifyInstance` satisfies them.

/** The parts of a Fastify request the plugin reads. */
export interface FastifyRequestLike {
  readonly raw: IncomingMessage
  readonly routeOptions: { readonly bodyLimit?: number | undefined }
}

/** The parts of a Fastify reply the plugin uses. */
export interface FastifyReplyLike {
  readonly raw: ServerResponse
}

/** A Fastify content-type parser without `parseAs`: the payload stream, and `done`. */
export type FastifyStreamParser = (
  request: FastifyRequestLike,
  payload: IncomingMessage,
  done: (error: Error | null, body?: unknown) => void,
) => void

/** The parts of a Fastify instance the plugin uses. */
export interface FastifyInstanceLike {
  readonly initialConfig: {
    readonly onProtoPoisoning?: string | undefined
    readonly onConstructorPoisoning?: string | undefined
  }
  removeContentTypeParser(contentType: string[]): unknown
  addContentTypeParser(contentType: string, parser: FastifyStreamParser): unknown
  addHook(
    name: 'onError',
    hook: (
      request: FastifyRequestLike,
      reply: FastifyReplyLike,
      error: Error,
      done: () => void,
    ) => void,
  ): unknown
}

/** The plugin {@link fastifyAdmission} returns: `await app.register(plugin)`. */
export type FastifyAdmissionPlugin = (
  instance: FastifyInstanceLike,
  options: unknown,
  done: (error?: Error) => void,
) => void

/**
 * A Fastify 5 plugin that admits every request body with `body`, a control built once by
 * `bodyAdmission()`: `await app.register(fastifyAdmission(bodyAdmission({ maxDepth: 32 })))`.
 * It replaces Fastify's `application/json` and `text/plain` parsers and handles every content
 * type no other parser claims, so a body of a type the control does not take is refused (415
 * `ERR_BODY_MEDIA_TYPE`) rather than handed over as text; parsers an app registers for its own
 * types (multipart...) still win. Each route's `bodyLimit` (Fastify's default: 1 MiB) lowers the
 * control's `maxBytes`, never raises it; Fastify's `onProtoPoisoning` /
 * `onConstructorPoisoning` refusal (on by default) is kept: `__proto__` and
 * `constructor.prototype` keys are refused unless both are `'ignore'`. A refusal reaches
 * Fastify's error handler as an error with `statusCode`, `code` and `limit` (Fastify's default
 * answer: `{ statusCode, code, error, message }`, never the caller's bytes), and the
 * connection is closed after the answer without reading the rest of the body. An admitted body
 * is `request.body`; an empty `application/json` body is refused as Fastify's own parser
 * refuses it (400 `FST_ERR_CTP_EMPTY_JSON_BODY`), and a request Fastify sees without a body
 * never reaches a parser (`request.body` stays `undefined`). The principal of the
 * per-principal shares is `request.principal` when an earlier hook set it to a string. Each
 * refusal is reported once to the control's `onRefusal` hook, with that principal's key
 * (`refusalPrincipal`) and `options.route` ({@link FASTIFY_ADMISSION_OPTIONS}: the name the host
 * gives the routes this plugin guards, never the request's path).
 * @throws TypeError at construction when `body` is not a control, or on a bad or unknown option.
 */
export function fastifyAdmission(
  body: BodyAdmission,
  options?: FrameworkAdmissionOptions,
): FastifyAdmissionPlugin {
  requireControl('fastifyAdmission', body)
  const { route } = FASTIFY_ADMISSION_OPTIONS.resolve(options)
  const plugin: FastifyAdmissionPlugin = (fastify, _options, done) => {
    const config = fastify.initialConfig
    const keepsPoisoningRefusal =
      config.onProtoPoisoning !== 'ignore' || config.onConstructorPoisoning !== 'ignore'
    const base = narrowControl(body, { protoKeys: keepsPoisoningRefusal ? 'refuse' : undefined })
    // One control per distinct route limit, built on first use (routes are few and fixed).
    const byLimit = new Map<number, BodyAdmission>()
    const controlFor = (limit: number | undefined): BodyAdmission => {
      if (limit === undefined) return base
      let control = byLimit.get(limit)
      if (control === undefined) {
        control = narrowControl(base, { maxBytes: limit })
        byLimit.set(limit, control)
      }
      return control
    }
    const refused = new WeakSet<object>()

    // `json`: the parser stands in for Fastify's `application/json` one, which refuses an empty
    // body (Fastify calls a parser only when the head announces one: a type, a length or chunks).
    const parserFor =
      (json: boolean): FastifyStreamParser =>
      (request, payload, parsed) => {
        const control = controlFor(request.routeOptions.bodyLimit)
        const principal = (request as { principal?: unknown }).principal
        const decision = control.classify(nodeRequestHead(request.raw))
        control
          .admit(payload, decision, {
            principal: typeof principal === 'string' ? principal : undefined,
          })
          .then(
            (result) => {
              if (result.ok) {
                if (json && isEmpty(result)) parsed(emptyJsonBodyError())
                else parsed(null, result.value)
                return
              }
              const error = fastifyError(result.error, control.policy.retryAfterSeconds)
              refused.add(error)
              parsed(error)
              reportBodyRefusal(control, result.error, error.status, {
                principal: typeof principal === 'string' ? principal : undefined,
                route,
              })
            },
            (error: unknown) => parsed(error as Error),
          )
      }

    fastify.removeContentTypeParser(['application/json', 'text/plain'])
    fastify.addContentTypeParser('application/json', parserFor(true))
    fastify.addContentTypeParser('*', parserFor(false))
    // Before the error handler answers: the unread rest of a refused body must never be read
    // as a next request, and the client must still receive the answer (a lingering close).
    fastify.addHook('onError', (_request, reply, error, next) => {
      if (refused.has(error)) closeAfterResponse(reply.raw)
      next()
    })
    done()
  }
  // Fastify's convention (what `fastify-plugin` sets): not encapsulated, so the parsers apply
  // to the routes of the context that registered the plugin.
  Object.assign(plugin, {
    [Symbol.for('skip-override')]: true,
    [Symbol.for('fastify.display-name')]: 'tollgate-admission',
  })
  return plugin
}

// No body bytes: a declared `Content-Length: 0` (skipped unread) or a chunked body of no chunks.
function isEmpty(result: AdmitSuccess): boolean {
  return result.skipped === 'no-body' || (result.skipped === undefined && result.wireBytes === 0)
}

/**
 * Fastify's own refusal of an empty JSON body, with its code, status and message (Fastify's
 * error handler renders it as it renders its own).
 */
function emptyJsonBodyError(): Error & { readonly code: string; readonly statusCode: number } {
  return Object.assign(
    new Error("Body cannot be empty when content-type is set to 'application/json'"),
    { code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400 },
  )
}

/**
 * The refusal as Fastify reads an error: `statusCode` (and `status`), the stable `code`, the
 * `limit`, a bounded message, and `headers` (`Connection: close`, `Retry-After` on a 503), which
 * Fastify's error handler sets on the reply.
 */
function fastifyError(error: AdmissionError, retryAfterSeconds: number): HttpAdmissionError {
  return toHttpError(error, retryAfterSeconds)
}
