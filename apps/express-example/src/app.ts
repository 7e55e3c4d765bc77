import { admission } from '@tollgate/http-admission'
import { isAdmissionError, normalizeResult } from '@tollgate/json-budget'
import express, { type NextFunction, type Request, type Response } from 'express'
import { type Note, NoteStore } from './notes.js'

/** Options of {@link createApp}; the defaults are the ones the README documents. */
export interface AppOptions {
  /** Body cap of `POST /notes`, in bytes. Default: 1 MiB. */
  readonly notesMaxBytes?: number
  /** Body cap of `PUT /notes/:id/tags`, in bytes. Default: 1 KiB. */
  readonly tagsMaxBytes?: number
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
 * Every JSON route admits its body with `admission()` (the tags route with a 1 KiB cap);
 * answers go through `normalizeResult`; errors are JSON.
 */
export function createApp(options: AppOptions = {}): express.Express {
  const store = new NoteStore()
  const app = express()
  app.disable('x-powered-by')

  app.post('/notes', admission({ maxBytes: options.notesMaxBytes ?? 1024 * 1024 }), (req, res) => {
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

  app.put(
    '/notes/:id/tags',
    admission({ maxBytes: options.tagsMaxBytes ?? 1024, maxDepth: 4 }),
    (req, res) => {
      const note = store.retag(req.params.id, tagsField(req.body))
      if (note === undefined) throw new HttpError(404, 'not_found')
      send(res, 200, view(note))
    },
  )

  app.use((_req: Request, _res: Response, next: NextFunction) =>
    next(new HttpError(404, 'not_found')),
  )

  // The JSON error handler: the app's own errors by code; admission errors (with
  // onRefusal: 'next') by their code; anything else a generic 500 that says nothing more.
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
