import type { Document, Note, Project, SeedData } from './seed.js'

/** A search hit: which resource it came from, its id and title, never its whole body. */
export interface SearchHit {
  readonly resource: 'documents' | 'notes'
  readonly id: string
  readonly title: string
}

/**
 * Counts per project, as `knowledge.status` reports them: only over the resources the caller
 * can read (a resource it cannot read has no count, and its bodies are not in `bytes`).
 */
export interface ProjectStatus {
  readonly projectId: string
  readonly documents?: number
  readonly notes?: number
  /** UTF-8 bytes of the bodies of the counted resources. */
  readonly bytes: number
}

/**
 * The in-memory knowledge store of the reference server. Reads only: the store is seeded once
 * and never mutated by a tool, so every refusal a test provokes leaves it as it was.
 */
export class KnowledgeStore {
  readonly #projects: ReadonlyMap<string, Project>
  readonly #documents: readonly Document[]
  readonly #notes: readonly Note[]

  constructor(seed: SeedData) {
    this.#projects = new Map(seed.projects.map((p) => [p.id, p]))
    this.#documents = seed.documents
    this.#notes = seed.notes
  }

  /** Every project, in seed order. */
  listProjects(): readonly Project[] {
    return [...this.#projects.values()]
  }

  /** Whether `projectId` names a seeded project. */
  hasProject(projectId: string): boolean {
    return this.#projects.has(projectId)
  }

  /** The documents of one project, without their bodies. */
  listDocuments(projectId: string): readonly { id: string; title: string; bytes: number }[] {
    return this.#documents
      .filter((d) => d.projectId === projectId)
      .map((d) => ({ id: d.id, title: d.title, bytes: Buffer.byteLength(d.body) }))
  }

  /** One document of one project, or `undefined`. */
  getDocument(projectId: string, id: string): Document | undefined {
    return this.#documents.find((d) => d.projectId === projectId && d.id === id)
  }

  /** The notes of one project, without their bodies. */
  listNotes(projectId: string): readonly { id: string; title: string }[] {
    return this.#notes
      .filter((n) => n.projectId === projectId)
      .map((n) => ({ id: n.id, title: n.title }))
  }

  /** One note of one project, or `undefined`. */
  getNote(projectId: string, id: string): Note | undefined {
    return this.#notes.find((n) => n.projectId === projectId && n.id === id)
  }

  /**
   * Case-insensitive substring search over titles and bodies of the resources the caller's
   * route mounts (`resources`), at most `limit` hits.
   */
  search(
    projectId: string,
    query: string,
    limit: number,
    resources: ReadonlySet<string>,
  ): readonly SearchHit[] {
    const needle = query.toLowerCase()
    const hits: SearchHit[] = []
    const consider = (resource: 'documents' | 'notes', items: readonly (Document | Note)[]) => {
      if (!resources.has(resource)) return
      for (const item of items) {
        if (hits.length >= limit) return
        if (item.projectId !== projectId) continue
        if (item.title.toLowerCase().includes(needle) || item.body.toLowerCase().includes(needle)) {
          hits.push({ resource, id: item.id, title: item.title })
        }
      }
    }
    consider('documents', this.#documents)
    consider('notes', this.#notes)
    return hits
  }

  /**
   * Counts and total body bytes of one project, over `resources` only (the resources the
   * caller can read on its route): the others are neither counted nor summed.
   */
  status(projectId: string, resources: ReadonlySet<string>): ProjectStatus {
    const documents = resources.has('documents')
      ? this.#documents.filter((d) => d.projectId === projectId)
      : undefined
    const notes = resources.has('notes')
      ? this.#notes.filter((n) => n.projectId === projectId)
      : undefined
    const bytes = [...(documents ?? []), ...(notes ?? [])].reduce(
      (sum, i) => sum + Buffer.byteLength(i.body),
      0,
    )
    return {
      projectId,
      ...(documents === undefined ? {} : { documents: documents.length }),
      ...(notes === undefined ? {} : { notes: notes.length }),
      bytes,
    }
  }

  /**
   * Whether the store can serve `snapshotId`. It keeps no snapshots (it holds one live view,
   * never versioned), so the answer is always `false` and a call naming a snapshot is refused
   * with `ERR_SNAPSHOT_UNAVAILABLE` rather than served live.
   */
  hasSnapshot(_snapshotId: string): boolean {
    return false
  }

  /** Everything one project holds, bodies included: the heavy export the `admin` dispatcher serves. */
  exportProject(projectId: string): {
    project: Project | undefined
    documents: readonly Document[]
    notes: readonly Note[]
  } {
    return {
      project: this.#projects.get(projectId),
      documents: this.#documents.filter((d) => d.projectId === projectId),
      notes: this.#notes.filter((n) => n.projectId === projectId),
    }
  }
}
