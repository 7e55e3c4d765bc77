import type { IncomingMessage } from 'node:http'
import {
  admission,
  bodyAdmission,
  defaultInFlightBudget,
  type FleetBodies,
  type InFlightBudget,
  nodeRequestHead,
  type PrincipalOf,
  refuseUnread,
} from '@tollgate/http-admission'
import { isAdmissionError, normalizeResult } from '@tollgate/json-budget'
import express, { type NextFunction, type Request, type Response } from 'express'
import { type Note, NoteStore } from './notes.js'

/** Options of {@link createApp}; the defaults are the ones the README documents. */
export interface AppOptions {
  /** Body cap of `POST /notes`, in bytes. Default: 1 MiB. */
  readonly notesMaxBytes?: number
  /** Body cap of `PUT /notes/:id/tags`, in bytes. Default: 1 KiB. */
  readonly tagsMaxBytes?: number
  /** The in-flight byte budget both body routes draw on. Default: the process-wide one (256 MiB). */
  readonly budget?: InFlightBudget
  /**
   * Whose share a body counts against: `'address'` keys by the client's IP address (the app
   * has no credentials; behind a proxy, key by the address the proxy forwards instead), so
   * one address holds at most 8 bodies and 1/4 of the budget; `false` turns the shares off.
   * Default: `'address'`.
   */
  readonly principal?: 'address' | false
  /**
   * A fleet-wide count of each principal's concurrent bodies, shared by every instance of the
   * app (`createFleetBodies()` on a Redis store; main builds it from `REDIS_URL`): a body past
   * it is answered 503 `ERR_ADMISSION_PRINCIPAL_BUSY` before a byte of it is read. Byte shares
   * stay per instance. Needs `principal`. Default: none (each instance counts alone).
   */
  readonly fleetBodies?: FleetBodies
}

/** The per-principal key: the peer address of the connection. */
const byAddress: PrincipalOf = (req) =>
  'socket' in req ? (req as IncomingMessage).socket.remoteAddress : undefined

const JSON_TYPE = { 'content-type': 'application/json' }

/** Answers from the head alone and closes the connection unread (see `refuseUnread`). */
function refuse(
  res: Response,
  status: number,
  error: string,
  headers: Record<string, string> = {},
) {
  refuseUnread(res, status, JSON.stringify({ error }), { ...JSON_TYPE, ...headers })
}

/** A client error of the app's own (validation, not found). */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code)
  }
}

const view = (note: Note) => ({
  id: note.id,
  title: note.title,
  body: note.body,
  tags: note.tags,
  createdAt: note.createdAt,
})

/** Sends `value` after admitting it with json-budget's result normalization (Sets become arrays). */
function send(res: Response, status: number, value: unknown): void {
  const { value: normalized } = normalizeResult(value, { profile: 'rest' })
  res.status(status).json(normalized)
}

function stringField(body: unknown, key: string, max: number, required: boolean): string {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[key] : undefined
  if (value === undefined && !required) return ''
  if (typeof value !== 'string' || value.length > max) throw new HttpError(400, `invalid_${key}`)
  return value
}

function tagsField(body: unknown): string[] {
  const tags =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>).tags : undefined
  if (tags === undefined) return []
  if (
    !Array.isArray(tags) ||
    tags.length > 32 ||
    !tags.every((t) => typeof t === 'string' && t.length <= 64)
  ) {
    throw new HttpError(400, 'invalid_tags')
  }
  return tags as string[]
}

/**
 * The notes API: `POST /notes`, `GET /notes/:id`, `GET /notes?q=`, `PUT /notes/:id/tags`.
 * Every JSON route admits its body with `admission()` holding that route's body control (the
 * tags route with a 1 KiB cap); answers go through `normalizeResult`; errors are JSON.
 */
export function createApp(options: AppOptions = {}): express.Express {
  const store = new NoteStore()
  const app = express()
  app.disable('x-powered-by')
  const budget = options.budget ?? defaultInFlightBudget
  // The middleware's own option: whose share a body counts against, per request.
  const host = (options.principal ?? 'address') === 'address' ? { principal: byAddress } : {}
  // Both body routes draw on the same fleet-wide count, as they draw on the same budget: a
  // principal's bodies in flight are counted whichever route they go to.
  const fleet = options.fleetBodies === undefined ? {} : { fleetBodies: options.fleetBodies }
  if (options.fleetBodies !== undefined && !('principal' in host)) {
    throw new TypeError("fleetBodies counts per principal: it needs principal: 'address'")
  }
  // One body control per route, built once here: bad figures fail at start-up.
  const notesBody = bodyAdmission({
    budget,
    ...fleet,
    maxBytes: options.notesMaxBytes ?? 1024 * 1024,
  })
  const tagsBody = bodyAdmission({
    budget,
    ...fleet,
    maxBytes: options.tagsMaxBytes ?? 1024,
    maxDepth: 4,
  })
  // Whether a request carries a body, decided as the body routes decide it (chunked, a
  // non-zero or malformed Content-Length), for the routes that take none.
  const anyBody = bodyAdmission({ passMethods: [], types: ['*/*'] })

  // A body sent to a route that takes none (every GET here) is answered from the head and
  // the connection closed unread; otherwise Node would read and discard it for as long as the
  // client sends.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const bodiless = req.method === 'GET' || req.method === 'HEAD'
    if (bodiless && anyBody.classify(nodeRequestHead(req)).action !== 'skip') {
      refuse(res, 400, 'body_not_allowed')
    } else {
      next()
    }
  })

  app.post('/notes', admission(notesBody, host), (req, res) => {
    const note = store.create({
      title: stringField(req.body, 'title', 200, true),
      body: stringField(req.body, 'body', 100_000, false),
      tags: tagsField(req.body),
    })
    send(res, 201, view(note))
  })

  app.get('/notes/:id', (req, res) => {
    const note = store.get(req.params.id)
    if (note === undefined) throw new HttpError(404, 'not_found')
    send(res, 200, view(note))
  })

  app.get('/notes', (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q : ''
    send(res, 200, { notes: store.search(q, 50).map(view) })
  })

  app.put('/notes/:id/tags', admission(tagsBody, host), (req, res) => {
    const note = store.retag(req.params.id, tagsField(req.body))
    if (note === undefined) throw new HttpError(404, 'not_found')
    send(res, 200, view(note))
  })

  // A known path with another method, and an unknown route: answered unread (405 with
  // Allow, 404), closing the connection.
  const allow = (methods: string) => (_req: Request, res: Response) =>
    refuse(res, 405, 'method_not_allowed', { allow: methods })
  app.all('/notes', allow('GET, POST'))
  app.all('/notes/:id', allow('GET'))
  app.all('/notes/:id/tags', allow('PUT'))
  app.use((_req: Request, res: Response) => refuse(res, 404, 'not_found'))

  // The JSON error handler: the app's own errors by code; admission errors (with
  // refusals: 'next') by their code; anything else a generic 500 that says nothing more.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof HttpError) {
      res.status(err.status).json({ error: err.code })
    } else if (isAdmissionError(err)) {
      res.status(err.status ?? 400).json({ error: err.code, limit: err.limit })
    } else {
      res.status(500).json({ error: 'internal' })
    }
  })
  return app
}
