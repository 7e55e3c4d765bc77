import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { findCitations, REPO_ROOTS } from './citations.js'
import {
  hasTest,
  type ListingPass,
  listProjectsTests,
  listProjectTestsSync,
  type ProjectTests,
} from './test-listing.js'

/** One broken reference: the document (repo-relative), its line, and what is wrong. */
export interface Problem {
  readonly doc: string
  readonly line: number
  /** The citation as a stable key: `path › name` for a test, `path` for a file. */
  readonly cite: string
  readonly reason: string
}

/** The repository root: three levels above this file (tools/repo-checks/src). */
export const REPO_ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..', '..')

function posix(path: string): string {
  return path.split(sep).join('/')
}

function walkMarkdown(dir: string, out: string[]): void {
  if (!existsSync(dir)) return
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue
    const full = join(dir, entry.name)
    if (entry.isDirectory()) walkMarkdown(full, out)
    else if (entry.name.endsWith('.md')) out.push(full)
  }
}

function readmesOneLevel(parent: string): string[] {
  if (!existsSync(parent)) return []
  return readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(parent, entry.name, 'README.md'))
    .filter((file) => existsSync(file))
}

/**
 * The documents whose claims are checked: the root README.md and SECURITY.md, every
 * README.md of packages/*, apps/*, tools/*, jobs/*, bench/ and schemas/ (any depth), and every
 * Markdown file under docs/. Repo-relative, sorted.
 */
export function listDocuments(root: string = REPO_ROOT): string[] {
  const files: string[] = []
  for (const name of ['README.md', 'SECURITY.md', 'bench/README.md']) {
    if (existsSync(join(root, name))) files.push(join(root, name))
  }
  for (const parent of ['packages', 'apps', 'tools', 'jobs'])
    files.push(...readmesOneLevel(join(root, parent)))
  const schemas: string[] = []
  walkMarkdown(join(root, 'schemas'), schemas)
  files.push(...schemas.filter((file) => file.endsWith(`${sep}README.md`)))
  walkMarkdown(join(root, 'docs'), files)
  return [...new Set(files.map((file) => posix(relative(root, file))))].sort()
}

/** The nearest folder at or above `dir` holding a package.json, stopping at `root`. */
function packageRoot(root: string, dir: string): string {
  let current = dir
  while (current.length >= root.length) {
    if (existsSync(join(current, 'package.json'))) return current
    if (current === root) break
    current = dirname(current)
  }
  return root
}

function isRepoRelative(path: string): boolean {
  return REPO_ROOTS.some((prefix) => path.startsWith(prefix))
}

/**
 * Where a cited path may live, in order: a repo-relative path (one starting with a top-level
 * folder) from the root; anything else from the document's folder, then its package root,
 * then the repository root.
 */
function candidates(root: string, docFile: string, path: string): string[] {
  const clean = path.replace(/\/$/, '')
  if (isRepoRelative(clean)) return [join(root, clean)]
  const docDir = dirname(docFile)
  // A path that leaves the repository names nothing: a user's clone has nothing beside it.
  return [
    ...new Set([join(docDir, clean), join(packageRoot(root, docDir), clean), join(root, clean)]),
  ].filter((candidate) => candidate === root || candidate.startsWith(`${root}/`))
}

// One vitest listing per project and pass for the whole check, keyed `<pass> <dir>`.
const listings = new Map<string, ProjectTests>()

function projectTests(pass: ListingPass, dir: string, file: string): ProjectTests {
  const key = `${pass} ${dir}`
  let listing = listings.get(key)
  // A listing limited to other files knows nothing of this one: list the whole project.
  if (listing === undefined || (listing.only !== undefined && !listing.only.has(file))) {
    listing = listProjectTestsSync(pass, dir)
    listings.set(key, listing)
  }
  return listing
}

/** True when the static pass already finds the cited name: no need to import the file. */
function foundStatically(dir: string, file: string, name: string): boolean {
  const listing = projectTests('static', dir, file)
  const tests = listing.files.get(file)
  return listing.error === undefined && tests !== undefined && hasTest(tests, name)
}

interface CitedTest {
  readonly dir: string
  readonly file: string
  readonly name: string
}

/** The cited tests of `doc` whose file exists, with the file's project folder. */
function citedTests(doc: string, root: string): CitedTest[] {
  const docFile = join(root, doc)
  return findCitations(readFileSync(docFile, 'utf8')).tests.flatMap((cited) => {
    const file = candidates(root, docFile, cited.path).find(
      (candidate) => existsSync(candidate) && statSync(candidate).isFile(),
    )
    if (file === undefined) return []
    return [{ dir: packageRoot(root, dirname(file)), file, name: cited.name }]
  })
}

async function listAll(pass: ListingPass, cited: readonly CitedTest[]): Promise<void> {
  const projects = new Map<string, Set<string>>()
  for (const { dir, file } of cited) {
    if (listings.has(`${pass} ${dir}`)) continue
    let files = projects.get(dir)
    if (files === undefined) projects.set(dir, (files = new Set()))
    files.add(file)
  }
  const todo = new Map([...projects].map(([dir, files]) => [dir, [...files].sort()]))
  for (const listing of await listProjectsTests(pass, todo)) {
    listings.set(`${pass} ${listing.dir}`, listing)
  }
}

/**
 * Lists, two projects at a time and only the cited files, the tests `docs` cite, so the
 * `checkDocument` calls that follow read names from memory: first vitest's static parse of
 * every cited file, then a real collection (which imports the file: seconds per package) of
 * only the files holding a name the parse did not find. Optional: `checkDocument` lists what
 * it has not seen itself, one project at a time.
 */
export async function listCitedTests(
  docs: readonly string[],
  root: string = REPO_ROOT,
): Promise<void> {
  const cited = docs.flatMap((doc) => citedTests(doc, root))
  await listAll('static', cited)
  await listAll(
    'collect',
    cited.filter(({ dir, file, name }) => !foundStatically(dir, file, name)),
  )
}

/** Checks one document (repo-relative path) and returns every broken reference in it. */
export function checkDocument(doc: string, root: string = REPO_ROOT): Problem[] {
  const docFile = join(root, doc)
  const { tests, paths, malformed } = findCitations(readFileSync(docFile, 'utf8'))
  const problems: Problem[] = []
  for (const bad of malformed) {
    problems.push({
      doc,
      line: bad.line,
      cite: bad.text,
      reason: 'test citation does not use the `›` separator (see docs/evidence.md)',
    })
  }
  for (const cited of paths) {
    const found = candidates(root, docFile, cited.path).some((file) => existsSync(file))
    if (!found) {
      problems.push({ doc, line: cited.line, cite: cited.path, reason: 'no such file or folder' })
    }
  }
  for (const cited of tests) {
    const cite = `${cited.path} › ${cited.name}`
    const file = candidates(root, docFile, cited.path).find(
      (candidate) => existsSync(candidate) && statSync(candidate).isFile(),
    )
    // A missing file is already reported once as a path problem; report the test too, so
    // the allowlist keys stay per citation.
    if (file === undefined) {
      problems.push({ doc, line: cited.line, cite, reason: 'cited test file does not exist' })
      continue
    }
    const dir = packageRoot(root, dirname(file))
    // A literal name the static parse finds is declared; anything else (an each() case, a
    // template, an escaped quote, a skipped describe) is judged by what vitest collects.
    if (foundStatically(dir, file, cited.name)) continue
    const listing = projectTests('collect', dir, file)
    const tests = listing.files.get(file)
    let reason: string | undefined
    if (listing.error !== undefined) {
      reason = `vitest could not list the tests of ${posix(relative(root, dir)) || '.'}: ${listing.error}`
    } else if (tests === undefined) {
      reason = 'not a test file of its package (its vitest config does not collect it)'
    } else if (!hasTest(tests, cited.name)) {
      reason = 'no test of that name in the file'
    }
    if (reason !== undefined) problems.push({ doc, line: cited.line, cite, reason })
  }
  return problems
}

/** Counts of what a document cites, for the report and the vacuity checks. */
export function countCitations(
  doc: string,
  root: string = REPO_ROOT,
): { tests: number; paths: number } {
  const { tests, paths } = findCitations(readFileSync(join(root, doc), 'utf8'))
  return { tests: tests.length, paths: paths.length }
}
