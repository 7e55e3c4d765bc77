/**
 * The built-in seed data of the reference server: three projects, their documents and
 * notes. Some documents are generated past 64 KiB on purpose, so a read of one crosses the
 * continuation threshold and is answered with a token instead of the payload.
 */

/** One project of the knowledge store. */
export interface Project {
  readonly id: string
  readonly name: string
  readonly description: string
}

/** A document: the heavy resource (`documents`), which some routes do not mount. */
export interface Document {
  readonly id: string
  readonly projectId: string
  readonly title: string
  readonly body: string
}

/** A note: the light resource (`notes`), mounted on every route. */
export interface Note {
  readonly id: string
  readonly projectId: string
  readonly title: string
  readonly body: string
}

/** Everything the store starts with. */
export interface SeedData {
  readonly projects: readonly Project[]
  readonly documents: readonly Document[]
  readonly notes: readonly Note[]
}

const PARAGRAPH =
  'Admission means a request is measured and refused before the expensive or dangerous step: ' +
  'decoding, parsing, validation that drops keys, a handler, or a cache hit served to the wrong ' +
  'caller. The refusal is small, stable and never echoes what the caller sent. '

/** A deterministic body of roughly `kib` KiB, numbered by section so search has something to find. */
function generatedBody(topic: string, kib: number): string {
  const parts: string[] = []
  let size = 0
  for (let section = 1; size < kib * 1024; section++) {
    const part = `## ${topic}, section ${section}\n\n${PARAGRAPH}${PARAGRAPH}\n\n`
    parts.push(part)
    size += part.length
  }
  return parts.join('')
}

/** The embedded seed. Documents `atlas-handbook` (~96 KiB) and `borealis-runbook` (~80 KiB) are heavy. */
export const SEED_DATA: SeedData = Object.freeze({
  projects: Object.freeze([
    { id: 'atlas', name: 'Atlas', description: 'The public gateway and its admission rules.' },
    { id: 'borealis', name: 'Borealis', description: 'The internal indexing pipeline.' },
    { id: 'cygnus', name: 'Cygnus', description: 'A small archive of design notes.' },
  ]),
  documents: Object.freeze([
    {
      id: 'atlas-handbook',
      projectId: 'atlas',
      title: 'Atlas operator handbook',
      body: generatedBody('Atlas operations', 96),
    },
    {
      id: 'atlas-limits',
      projectId: 'atlas',
      title: 'Atlas limits',
      body: 'HTTP bodies are capped at 4 MiB; stdio lines at 64 MiB; results at 64 MiB.',
    },
    {
      id: 'borealis-runbook',
      projectId: 'borealis',
      title: 'Borealis runbook',
      body: generatedBody('Borealis indexing', 80),
    },
    {
      id: 'cygnus-overview',
      projectId: 'cygnus',
      title: 'Cygnus overview',
      body: 'Cygnus keeps the design notes of the earlier projects.',
    },
  ]),
  notes: Object.freeze([
    {
      id: 'atlas-note-1',
      projectId: 'atlas',
      title: 'Rotate the demo tokens',
      body: 'Demo tokens are printed at start; use a config file in any shared setting.',
    },
    {
      id: 'atlas-note-2',
      projectId: 'atlas',
      title: 'Continuations',
      body: 'Results over 64 KiB are answered with a continuation token.',
    },
    {
      id: 'borealis-note-1',
      projectId: 'borealis',
      title: 'Reindex weekly',
      body: 'The indexing pipeline is rebuilt every week.',
    },
    {
      id: 'cygnus-note-1',
      projectId: 'cygnus',
      title: 'Archive policy',
      body: 'Notes are kept; documents older than a year move to cold storage.',
    },
  ]),
})
