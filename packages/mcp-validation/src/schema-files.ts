import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The suffix every schema file carries: `<tool name>.schema.json`. */
export const SCHEMA_FILE_SUFFIX = '.schema.json'

/**
 * Schema files that are referents, not tools: the shared call context every project-scoped
 * tool composes with `allOf: [{ $ref }]`.
 */
export const SHARED_SCHEMA_FILES: readonly string[] = Object.freeze(['tool-context.schema.json'])

/**
 * The rule mapping a file to its tool: the file name minus {@link SCHEMA_FILE_SUFFIX}, used
 * verbatim (`knowledge.search.schema.json` → `knowledge.search`). Returns `undefined` for a
 * file that is not a schema file, for a shared referent and for an empty name.
 */
export function toolNameForFile(
  fileName: string,
  shared: readonly string[] = SHARED_SCHEMA_FILES,
): string | undefined {
  if (!fileName.endsWith(SCHEMA_FILE_SUFFIX)) return undefined
  if (shared.includes(fileName)) return undefined
  const name = fileName.slice(0, -SCHEMA_FILE_SUFFIX.length)
  return name.length > 0 ? name : undefined
}

/** One schema document as loaded: where it came from, and its parsed JSON. */
export interface SchemaDocument {
  /** The file name (no directory), which names the tool by {@link toolNameForFile}. */
  readonly file: string
  /** Where it was read from, for start-up errors; the file name when it was not read. */
  readonly source: string
  /** The parsed schema. */
  readonly schema: unknown
}

/**
 * Reads every `*.schema.json` file directly in `directory` (not recursively), sorted by name.
 * Other files are ignored, except a `*.json` file without the `.schema.json` suffix, which is
 * refused: a misnamed schema would otherwise leave its tool silently unpublished.
 * @throws Error on an unreadable directory, a misnamed `.json` file or a file that is not JSON.
 */
export function readSchemaDirectory(directory: string | URL): SchemaDocument[] {
  const dir = typeof directory === 'string' ? directory : fileURLToPath(directory)
  const out: SchemaDocument[] = []
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.json')) continue
    const source = join(dir, file)
    if (!file.endsWith(SCHEMA_FILE_SUFFIX)) {
      throw new Error(`${source}: a JSON file here must be named <tool name>${SCHEMA_FILE_SUFFIX}`)
    }
    let schema: unknown
    try {
      schema = JSON.parse(readFileSync(source, 'utf8'))
    } catch (error) {
      throw new Error(`${source}: not valid JSON (${(error as Error).message})`)
    }
    out.push({ file, source, schema })
  }
  return out
}
