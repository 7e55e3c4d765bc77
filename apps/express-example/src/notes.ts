/** A note as stored and answered. */
export interface Note {
  readonly id: string
  readonly title: string
  readonly body: string
  readonly tags: Set<string>
  readonly createdAt: string
}

/** A tiny in-memory notes store: create, get, search, retag. */
export class NoteStore {
  readonly #notes = new Map<string, Note>()
  #next = 1

  create(input: { title: string; body: string; tags: readonly string[] }): Note {
    const note: Note = {
      id: String(this.#next++),
      title: input.title,
      body: input.body,
      tags: new Set(input.tags),
      createdAt: new Date().toISOString(),
    }
    this.#notes.set(note.id, note)
    return note
  }

  get(id: string): Note | undefined {
    return this.#notes.get(id)
  }

  search(query: string, limit: number): Note[] {
    const q = query.toLowerCase()
    const found: Note[] = []
    for (const note of this.#notes.values()) {
      if (found.length >= limit) break
      if (
        note.title.toLowerCase().includes(q) ||
        note.body.toLowerCase().includes(q) ||
        note.tags.has(q)
      ) {
        found.push(note)
      }
    }
    return found
  }

  retag(id: string, tags: readonly string[]): Note | undefined {
    const note = this.#notes.get(id)
    if (note === undefined) return undefined
    const next = { ...note, tags: new Set(tags) }
    this.#notes.set(id, next)
    return next
  }
}
