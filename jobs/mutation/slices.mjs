// Slices of a package's mutation run and their mechanical merge.
//
// A Stryker run too long for one sitting is split by file: each slice is a whole Stryker JSON
// report (mutation-testing-report-schema) for the files it mutated, saved as
// `reports/mutation/slices/<slug>.json` with a `tollgate` record of what it covered, when, at
// which commit and on which machine. The merge combines every slice of a package into one
// report: each file is taken whole from the latest slice that covered it (never half of one
// run and half of another), and the files of the package's `mutate` set that no slice covered
// are listed, so "the whole package" is checked, not assumed.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { isAbsolute, join, relative, sep } from 'node:path'

/** Folders never searched for source files (generated, installed, or Stryker's sandboxes). */
const SKIP = new Set(['node_modules', 'dist', 'reports', 'coverage', '.stryker-tmp', '.turbo'])

/**
 * A glob (`*`, `**`, `?`) as an anchored regular expression over POSIX paths relative to the
 * package: `src/**\/*.ts` matches `src/a.ts` and `src/x/b.ts`.
 */
export function globToRegExp(glob) {
  let out = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]
    if (c === '*' && glob[i + 1] === '*') {
      if (glob[i + 2] === '/') {
        out += '(?:.*/)?'
        i += 2
      } else {
        out += '.*'
        i += 1
      }
    } else if (c === '*') out += '[^/]*'
    else if (c === '?') out += '[^/]'
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${out}$`)
}

/**
 * The files of `all` (package-relative POSIX paths) selected by Stryker-style `mutate`
 * patterns: a file is in when the last pattern that matches it is not negated (`!`).
 */
export function selectFiles(all, patterns) {
  const compiled = patterns.map((p) => ({
    negated: p.startsWith('!'),
    re: globToRegExp(p.startsWith('!') ? p.slice(1) : p),
  }))
  return all
    .filter((file) => {
      let inside = false
      for (const { negated, re } of compiled) if (re.test(file)) inside = !negated
      return inside
    })
    .sort()
}

/** Every file under `dir`, package-relative and POSIX, generated folders left out. */
export function listPackageFiles(dir, base = dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.named-mutants')) continue
    const full = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...listPackageFiles(full, base))
    else if (entry.isFile()) out.push(relative(base, full).split(sep).join('/'))
  }
  return out
}

/** A slice's file name from the `--files` globs: `src/key-policy.ts` → `src-key-policy.ts`. */
export function sliceSlug(globs) {
  if (globs === undefined || globs.length === 0) return 'all'
  const slug = globs
    .join('+')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return slug.length > 0 ? slug.slice(0, 100) : 'slice'
}

/** A Stryker report's file key as a package-relative POSIX path. */
export function normalizeKey(key, packageDir) {
  const posix = key.split('\\').join('/')
  if (isAbsolute(key) && packageDir !== undefined) {
    return relative(packageDir, key).split(sep).join('/')
  }
  return posix.replace(/^\.\//, '')
}

/**
 * The report with package-relative keys and each test id replaced by `<test file> › <name>`:
 * Stryker numbers tests per run ("0", "1", …), so ids from two runs would collide in a merge;
 * the mutants' `killedBy`/`coveredBy` are rewritten with them.
 */
export function stableTestIds(report, packageDir) {
  const ids = new Map()
  let testFiles
  if (report.testFiles !== undefined) {
    testFiles = {}
    for (const [key, entry] of Object.entries(report.testFiles)) {
      const file = normalizeKey(key, packageDir)
      const tests = (entry.tests ?? []).map((t) => {
        const id = `${file} › ${t.name}`
        ids.set(String(t.id), id)
        return { ...t, id }
      })
      testFiles[file] = { ...entry, tests }
    }
  }
  const remap = (list) => list?.map((id) => ids.get(String(id)) ?? String(id))
  const files = {}
  for (const [key, entry] of Object.entries(report.files ?? {})) {
    files[normalizeKey(key, packageDir)] = {
      ...entry,
      mutants: (entry.mutants ?? []).map((m) => ({
        ...m,
        ...(m.killedBy ? { killedBy: remap(m.killedBy) } : {}),
        ...(m.coveredBy ? { coveredBy: remap(m.coveredBy) } : {}),
      })),
    }
  }
  return { files, testFiles }
}

/**
 * Writes one slice: the Stryker report with its file keys made package-relative and a
 * `tollgate` record (`slug`, `files` it was asked to mutate, `date`, `commit`, `machine`,
 * `minutes`). Returns the path written.
 */
export function saveSlice(packageDir, report, meta) {
  const { files, testFiles } = stableTestIds(report, packageDir)
  const folder = join(packageDir, 'reports', 'mutation', 'slices')
  mkdirSync(folder, { recursive: true })
  const path = join(folder, `${meta.slug}.json`)
  const out = { ...report, files, ...(testFiles ? { testFiles } : {}), tollgate: meta }
  writeFileSync(path, `${JSON.stringify(out, null, 2)}\n`)
  return path
}

/** Every slice report of a package (empty when none), oldest first. */
export function readSlices(packageDir) {
  const folder = join(packageDir, 'reports', 'mutation', 'slices')
  if (!existsSync(folder)) return []
  return orderSlices(
    readdirSync(folder)
      .filter((f) => f.endsWith('.json'))
      .map((f) => {
        const report = JSON.parse(readFileSync(join(folder, f), 'utf8'))
        const meta = report.tollgate ?? {}
        return {
          ...report,
          tollgate: {
            ...meta,
            slug: meta.slug ?? f.replace(/\.json$/, ''),
            date: meta.date ?? statSync(join(folder, f)).mtime.toISOString(),
            files: meta.files ?? Object.keys(report.files ?? {}),
          },
        }
      }),
  )
}

/** Oldest first by `tollgate.date`, then by slug, so "later replaces earlier" is defined. */
export function orderSlices(slices) {
  return [...slices].sort(
    (a, b) =>
      String(a.tollgate.date).localeCompare(String(b.tollgate.date)) ||
      String(a.tollgate.slug).localeCompare(String(b.tollgate.slug)),
  )
}

/**
 * Merges slice reports (any order; sorted here) into one Stryker report. Each file comes
 * whole from the latest slice that covered it: a slice covers the files it was asked to mutate
 * (`tollgate.files`, which includes files without a mutant) and every file in its report.
 * `expected` is the package's `mutate` set; `missing` lists those no slice covered, and
 * `tollgate.sources` names the slice each file came from. Test files are merged by test id,
 * a later slice's definition replacing an earlier one.
 */
export function mergeSlices(slices, expected = []) {
  const ordered = orderSlices(slices)
  const files = {}
  const sources = {}
  const tests = new Map()
  let base = {}
  for (const slice of ordered) {
    const { tollgate: meta, files: sliceFiles = {}, testFiles = {}, ...rest } = slice
    base = rest
    const covered = new Set([...(meta.files ?? []), ...Object.keys(sliceFiles)])
    for (const file of covered) {
      files[file] = sliceFiles[file] ?? { language: 'typescript', source: '', mutants: [] }
      sources[file] = meta.slug
    }
    for (const [file, entry] of Object.entries(testFiles)) {
      const byId = tests.get(file) ?? { entry, byId: new Map() }
      byId.entry = { ...entry, tests: undefined }
      for (const t of entry.tests ?? []) byId.byId.set(t.id, t)
      tests.set(file, byId)
    }
  }
  const testFiles = {}
  for (const [file, { entry, byId }] of tests)
    testFiles[file] = { ...entry, tests: [...byId.values()] }
  const missing = expected.filter((file) => !(file in files)).sort()
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)))
  return {
    ...base,
    files: sorted,
    ...(tests.size > 0 ? { testFiles } : {}),
    tollgate: {
      merged: true,
      slices: ordered.map((s) => ({
        slug: s.tollgate.slug,
        date: s.tollgate.date,
        commit: s.tollgate.commit ?? 'unknown',
        machine: s.tollgate.machine ?? 'unknown',
        minutes: s.tollgate.minutes,
        files: Object.keys(sources).filter((f) => sources[f] === s.tollgate.slug),
      })),
      sources,
      expected,
      missing,
    },
  }
}

/**
 * The files of a merged report whose source on disk is no longer the source the slice measured
 * (Stryker records each file's text in the report): their mutants, locations and verdicts
 * describe code that has since changed, so their figures are stale until the file is run again.
 * A file a slice covered without recording its text (no mutant) is not judged. `readSource`
 * returns the current text of a package-relative path, or undefined for a file that is gone.
 */
export function staleFiles(report, readSource) {
  const stale = []
  for (const [file, entry] of Object.entries(report.files ?? {})) {
    if (typeof entry.source !== 'string' || entry.source === '') continue
    if (readSource(file) !== entry.source) stale.push(file)
  }
  return stale.sort()
}

/**
 * A report Stryker wrote straight to reports/mutation/mutation.json (not a merge of this
 * driver, e.g. `pnpm --filter <pkg> mutation`) becomes a slice `direct-<its date>`, so the merge
 * never overwrites a run. Returns the slug, or undefined when there was nothing to adopt.
 */
export function adoptDirectReport(dir) {
  const file = join(dir, 'reports', 'mutation', 'mutation.json')
  if (!existsSync(file)) return
  const report = JSON.parse(readFileSync(file, 'utf8'))
  if (report.tollgate?.merged === true) return
  const date = statSync(file).mtime.toISOString()
  saveSlice(dir, report, {
    slug: `direct-${date.replace(/[:.]/g, '-')}`,
    date,
    commit: 'unknown (written by Stryker outside pnpm mutation)',
    machine: 'unknown',
  })
  return `direct-${date.replace(/[:.]/g, '-')}`
}
