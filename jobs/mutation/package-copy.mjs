// A throw-away copy of one workspace package, for jobs that must change its source (the named
// mutants) without ever writing the real `src/`.
//
// The copy lives two folders below the package (`<package>/.named-mutants/<random>/`), the
// depth of Stryker's own sandbox: module resolution from the copy walks up through the
// package's and the repository's node_modules exactly as from a Stryker sandbox, so the
// package's `stryker.vitest.config.mjs` (written for that sandbox) runs the tests unchanged.
// As Stryker does in its sandbox, a tsconfig's relative `extends` is rewritten to reach the
// same file from the copy (vite's transform refuses a tsconfig whose base it cannot find).
import { createHash } from 'node:crypto'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'

/** The folder under a package that holds its copies (git-ignored). */
export const COPIES_DIR = '.named-mutants'

// Not copied: installed, generated or other jobs' scratch folders. node_modules is linked.
const LEFT_OUT = new Set([
  'node_modules',
  COPIES_DIR,
  '.stryker-tmp',
  'reports',
  'coverage',
  '.turbo',
  '.vitest-report.json',
])

/**
 * Copies `packageDir` (src, test, configs, dist; not node_modules, reports or scratch
 * folders) into a fresh folder under `<packageDir>/.named-mutants/` and links the package's
 * node_modules into it. Returns the copy's path; remove it with {@link removeCopy}.
 */
export function copyPackage(packageDir) {
  const parent = join(packageDir, COPIES_DIR)
  mkdirSync(parent, { recursive: true })
  const copy = mkdtempSync(join(parent, 'copy-'))
  for (const entry of readdirSync(packageDir)) {
    if (LEFT_OUT.has(entry)) continue
    cpSync(join(packageDir, entry), join(copy, entry), {
      recursive: true,
      filter: (source) => !LEFT_OUT.has(basename(source)),
    })
  }
  for (const entry of readdirSync(copy)) {
    if (/^tsconfig.*\.json$/.test(entry)) retargetExtends(join(copy, entry), packageDir)
  }
  try {
    symlinkSync(join(packageDir, 'node_modules'), join(copy, 'node_modules'), 'dir')
  } catch (error) {
    // A package without its own node_modules resolves through the parents' alone.
    if (error.code !== 'ENOENT') throw error
  }
  return copy
}

/** Points a copied tsconfig's relative `extends` at the file the original extends. */
function retargetExtends(file, packageDir) {
  const text = readFileSync(file, 'utf8')
  const next = text.replace(/("extends"\s*:\s*")(\.{1,2}\/[^"]*)"/, (_, head, target) => {
    const moved = relative(dirname(file), resolve(packageDir, target)).split(sep).join('/')
    return `${head}${moved}"`
  })
  if (next !== text) writeFileSync(file, next)
}

/** Removes a copy made by {@link copyPackage} (and the copies folder once it is empty). */
export function removeCopy(copy) {
  rmSync(copy, { recursive: true, force: true })
  const parent = join(copy, '..')
  if (basename(parent) === COPIES_DIR && readdirSync(parent).length === 0)
    rmSync(parent, { recursive: true })
}

/**
 * A SHA-256 over every file under `dir` (relative path and bytes, in sorted order), to show a
 * folder was left byte-identical.
 */
export function hashTree(dir) {
  const hash = createHash('sha256')
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const full = join(folder, entry.name)
      if (entry.isDirectory()) walk(full)
      else {
        hash.update(relative(dir, full).split(sep).join('/'))
        hash.update('\0')
        hash.update(readFileSync(full))
        hash.update('\0')
      }
    }
  }
  walk(dir)
  return hash.digest('hex')
}
