import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { findCitations, REPO_ROOTS } from './citations.js'
import { extractTestNames, hasTestName, type TestNames } from './test-names.js'

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

const namesCache = new Map<string, TestNames>()

function testNamesOf(file: string): TestNames {
  let names = namesCache.get(file)
  if (names === undefined) {
    names = extractTestNames(readFileSync(file, 'utf8'))
    namesCache.set(file, names)
  }
  return names
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
    if (!hasTestName(testNamesOf(file), cited.name)) {
      problems.push({ doc, line: cited.line, cite, reason: 'no test of that name in the file' })
    }
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
