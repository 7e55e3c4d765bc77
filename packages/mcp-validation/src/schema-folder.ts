// A folder of published schemas against the schemas a server's definitions give: written, or
// compared (the check a build or a test runs so the committed files cannot drift).

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SCHEMA_FILE_SUFFIX, SHARED_SCHEMA_FILES, toolNameForFile } from './schema-files.js'

/** How a schema folder differs from the schemas expected in it. */
export interface SchemaFolderReport {
  /** True when every list below is empty. */
  readonly ok: boolean
  /** Tools whose file is absent. */
  readonly missing: readonly string[]
  /** Tools whose file holds another schema (compared as JSON values, not as text). */
  readonly changed: readonly string[]
  /** Schema files naming a tool that is not expected (shared referents excepted). */
  readonly extra: readonly string[]
  /** Every tool name above, sorted: what a check prints. */
  readonly differing: readonly string[]
}

const WIDTH = 100

/**
 * `value` as JSON text in the repository's formatting (2-space indent, a non-empty object one
 * key per line, an array of scalars on one line when it fits in 100 columns), ending in a
 * newline, so a written file is already formatted.
 */
export function formatSchemaJson(value: unknown): string {
  return `${format(value, '', 0)}\n`
}

// `used`: columns already taken on the line where the value starts (indent, key, and the comma
// that may follow it).
function format(value: unknown, indent: string, used: number): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    const scalars = value.every((v) => typeof v !== 'object' || v === null)
    const inline = `[${value.map((v) => JSON.stringify(v)).join(', ')}]`
    if (scalars && used + inline.length <= WIDTH) return inline
    const inner = `${indent}  `
    const items = value.map((v) => inner + format(v, inner, inner.length + 1))
    return `[\n${items.join(',\n')}\n${indent}]`
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
    if (entries.length === 0) return '{}'
    const inner = `${indent}  `
    const lines = entries.map(([key, v]) => {
      const head = `${inner}${JSON.stringify(key)}: `
      return head + format(v, inner, head.length + 1)
    })
    return `{\n${lines.join(',\n')}\n${indent}}`
  }
  return JSON.stringify(value)
}

/** Whether two JSON values are equal (object key order ignored). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  return ka.every(
    (k) =>
      Object.hasOwn(b, k) &&
      sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  )
}

/**
 * Compares the folder `dir` with `schemas` (by tool name): each tool's `<tool>.schema.json`
 * must hold the same JSON value, and no other schema file may name a tool (the files of
 * `SHARED_SCHEMA_FILES`, such as `tool-context.schema.json`, are referents and are skipped). A
 * folder that does not exist misses every tool.
 */
export function compareSchemaFolder(
  dir: string,
  schemas: ReadonlyMap<string, unknown>,
): SchemaFolderReport {
  const files = existsSync(dir) ? readdirSync(dir) : []
  const missing: string[] = []
  const changed: string[] = []
  for (const [tool, schema] of schemas) {
    const file = `${tool}${SCHEMA_FILE_SUFFIX}`
    if (!files.includes(file)) {
      missing.push(tool)
      continue
    }
    let written: unknown
    try {
      written = JSON.parse(readFileSync(join(dir, file), 'utf8'))
    } catch {
      written = undefined
    }
    if (!sameJson(written, schema)) changed.push(tool)
  }
  const extra = files
    .map((file) => toolNameForFile(file, SHARED_SCHEMA_FILES))
    .filter((tool): tool is string => tool !== undefined && !schemas.has(tool))
  const differing = [...missing, ...changed, ...extra].sort()
  return Object.freeze({
    ok: differing.length === 0,
    missing: Object.freeze(missing.sort()),
    changed: Object.freeze(changed.sort()),
    extra: Object.freeze(extra.sort()),
    differing: Object.freeze(differing),
  })
}

/**
 * Writes each schema of `schemas` to `dir` as `<tool>.schema.json` ({@link formatSchemaJson}),
 * creating the folder; other files are left as they are. Returns the paths written.
 * @throws TypeError, before writing anything, on a tool name holding `/` or `\\`, or `.`/`..`.
 */
export function writeSchemaFolder(dir: string, schemas: ReadonlyMap<string, unknown>): string[] {
  for (const tool of schemas.keys()) {
    // A file name, never a path: a tool name cannot write outside the folder.
    if (/[\\/]/.test(tool) || tool === '.' || tool === '..' || tool.length === 0) {
      throw new TypeError(`tool ${JSON.stringify(tool)}: not usable as a file name`)
    }
  }
  mkdirSync(dir, { recursive: true })
  const written: string[] = []
  for (const [tool, schema] of schemas) {
    const path = join(dir, `${tool}${SCHEMA_FILE_SUFFIX}`)
    writeFileSync(path, formatSchemaJson(schema))
    written.push(path)
  }
  return written
}
