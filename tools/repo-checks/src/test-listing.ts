import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

/**
 * The tests of one vitest project (a folder with a package.json, read with its own vitest
 * config), as vitest itself collects them: every test file is imported, so `it.each`, template
 * and `describe`-in-a-function names are the names vitest runs, and a test skipped by an
 * environment condition (`it.skipIf`, `describe.runIf`) is listed like any other.
 */
export interface ProjectTests {
  /** The project folder (absolute). */
  readonly dir: string
  /** Absolute test file -> its tests. */
  readonly files: ReadonlyMap<string, FileTests>
  /** Set when vitest could not collect the project: the first line of what it reported. */
  readonly error?: string
  /** When the listing was limited to some test files: those files (absolute). */
  readonly only?: ReadonlySet<string>
}

/** The tests of one file, by the name of the `it()` call (without the `describe` names). */
export interface FileTests {
  readonly names: ReadonlySet<string>
  /** The names of the tests `it.each` / `it.for` produced (already in `names`). */
  readonly eachNames: readonly string[]
}

/**
 * How a project is listed: `static` parses the test files without importing them (cheap, literal
 * names only), `collect` imports them as a test run does (every name vitest would run).
 */
export type ListingPass = 'static' | 'collect'

interface Listing {
  readonly files: readonly string[]
  readonly tests: readonly { file: string; name: string; mode: string; each: boolean }[]
}

// printf-style placeholders of an `each` name (`%s`, `%i`, `%j`, `%#`, ...) and `$field` ones.
const PLACEHOLDER = /%[sdifjoOc#%]|\$#|\$[A-Za-z_][\w.]*/g

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * True when `file` has a test named `cited`, or `cited` is an `it.each` template (it holds a
 * placeholder) and at least one test `it.each` produced in the file is an expansion of it: a
 * template cites every case of a table.
 */
export function hasTest(file: FileTests, cited: string): boolean {
  if (file.names.has(cited)) return true
  if (cited.search(PLACEHOLDER) < 0) return false
  const pattern = new RegExp(
    `^${cited
      .split(PLACEHOLDER)
      .map((part) => escapeRegExp(part))
      .join('.+?')}$`,
    's',
  )
  return file.eachNames.some((name) => pattern.test(name))
}

const SCRIPT = new URL('./list-tests.mjs', import.meta.url).pathname
const run = promisify(execFile)

// @fast-check/vitest registers each `it.prop` test as `<name> (with seed=N)`; a document cites
// the name as written in the test file.
const SEED = / \(with seed=-?\d+\)$/

// The child is a vitest of its own: the variables of the vitest running this check (worker and
// pool ids, mode) must not leak into it.
function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')),
  )
}

function fromListing(dir: string, listing: Listing, only: readonly string[]): ProjectTests {
  const files = new Map<string, { names: Set<string>; eachNames: string[] }>()
  const of = (file: string) => {
    let tests = files.get(file)
    if (tests === undefined) files.set(file, (tests = { names: new Set(), eachNames: [] }))
    return tests
  }
  for (const file of listing.files) of(file)
  for (const test of listing.tests) {
    // A todo declares a test that does not exist yet: it holds no claim.
    if (test.mode === 'todo') continue
    const tests = of(test.file)
    const name = test.name.replace(SEED, '')
    tests.names.add(name)
    if (test.each) tests.eachNames.push(name)
  }
  return only.length === 0 ? { dir, files } : { dir, files, only: new Set(only) }
}

function failure(dir: string, error: unknown): ProjectTests {
  const stderr = String((error as { stderr?: unknown }).stderr ?? error)
  const line = stderr.split('\n').find((l) => l.trim() !== '') ?? 'vitest exited non-zero'
  return { dir, files: new Map(), error: line.trim() }
}

function outFile(): { file: string; done: () => void } {
  const tmp = mkdtempSync(join(tmpdir(), 'repo-checks-list-'))
  return {
    file: join(tmp, 'tests.json'),
    done: () => rmSync(tmp, { recursive: true, force: true }),
  }
}

const OPTIONS = { env: childEnv(), maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' } as const

/**
 * Lists the tests of the vitest project in `dir` (blocking: one child process), all of them or
 * only those of the test files `only` (absolute paths).
 */
export function listProjectTestsSync(
  pass: ListingPass,
  dir: string,
  only: readonly string[] = [],
): ProjectTests {
  const out = outFile()
  try {
    execFileSync(process.execPath, [SCRIPT, dir, out.file, pass, ...only], {
      ...OPTIONS,
      cwd: dir,
      stdio: 'pipe',
    })
    return fromListing(dir, JSON.parse(readFileSync(out.file, 'utf8')) as Listing, only)
  } catch (error) {
    return failure(dir, error)
  } finally {
    out.done()
  }
}

/** `listProjectTestsSync` in a child process that does not block. */
export async function listProjectTests(
  pass: ListingPass,
  dir: string,
  only: readonly string[] = [],
): Promise<ProjectTests> {
  const out = outFile()
  try {
    await run(process.execPath, [SCRIPT, dir, out.file, pass, ...only], { ...OPTIONS, cwd: dir })
    return fromListing(dir, JSON.parse(readFileSync(out.file, 'utf8')) as Listing, only)
  } catch (error) {
    return failure(dir, error)
  } finally {
    out.done()
  }
}

/**
 * Lists several projects (folder -> the test files to list in it), `concurrency` child
 * processes at a time.
 */
export async function listProjectsTests(
  pass: ListingPass,
  projects: ReadonlyMap<string, readonly string[]>,
  concurrency = 2,
): Promise<ProjectTests[]> {
  const entries = [...projects]
  const results: ProjectTests[] = []
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < entries.length) {
      const [dir, only] = entries[next++]!
      results.push(await listProjectTests(pass, dir, only))
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, entries.length) }, worker))
  return results
}
