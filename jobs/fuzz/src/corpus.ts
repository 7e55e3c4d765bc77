import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** One stored input: the target, why it is there, how it was found, and the input itself. */
export interface CorpusEntry {
  readonly target: string
  /** What the input exercises (hand-written seeds) or what differed (found by a run). */
  readonly note: string
  /** For found inputs: the run seed and date, so the find can be reproduced. */
  readonly found?: { readonly seed: number; readonly date: string; readonly failure: string }
  readonly input: unknown
}

/** `jobs/fuzz/corpus`, one folder per target, one JSON file per input. */
export const CORPUS_DIR = new URL('../corpus/', import.meta.url).pathname

/** Every entry of one target's corpus, with its file name. An absent folder is an empty corpus. */
export function readCorpus(
  target: string,
  dir: string = CORPUS_DIR,
): { file: string; entry: CorpusEntry }[] {
  const folder = join(dir, target)
  if (!existsSync(folder)) return []
  return readdirSync(folder)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      file,
      entry: JSON.parse(readFileSync(join(folder, file), 'utf8')) as CorpusEntry,
    }))
}

/** Writes an entry under a name derived from its input, so the same input is stored once. */
export function writeCorpus(entry: CorpusEntry, dir: string = CORPUS_DIR): string {
  const folder = join(dir, entry.target)
  mkdirSync(folder, { recursive: true })
  const hash = createHash('sha256').update(JSON.stringify(entry.input)).digest('hex').slice(0, 16)
  const file = join(folder, `${hash}.json`)
  writeFileSync(file, `${JSON.stringify(entry, null, 2)}\n`)
  // Format it as the repository's formatter would, so a saved input passes `biome check`.
  const biome = new URL('../../../node_modules/.bin/biome', import.meta.url).pathname
  if (existsSync(biome)) spawnSync(biome, ['format', '--write', file], { stdio: 'ignore' })
  return file
}
