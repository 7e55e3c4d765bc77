#!/usr/bin/env node
// `pnpm pack:all [name…]`: builds every package under packages/, packs each into .packs/ (pnpm
// pack rewrites `workspace:*` to the version of the tarball beside it) and prints, for each
// package, the one `npm install` line that installs it into another project: its tarball and
// the tarballs of every tollgate package it depends on, resolved among them. Nothing is
// published from here (releases go through changesets); this is how to try a package from a
// clone. With names, only those packages' lines are printed (all are still packed).
import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Every package under packages/: name → { dir, manifest }. */
export function workspacePackages() {
  const packages = new Map()
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'))
    packages.set(manifest.name, { dir: join(root, 'packages', dir), manifest })
  }
  return packages
}

/** `name` and every tollgate package it depends on (dependencies and peers), in install order. */
export function tarballClosure(packages, name, seen = new Set()) {
  if (seen.has(name)) return seen
  const { manifest } = packages.get(name)
  const deps = { ...manifest.peerDependencies, ...manifest.dependencies }
  for (const dep of Object.keys(deps)) if (packages.has(dep)) tarballClosure(packages, dep, seen)
  seen.add(name)
  return seen
}

/**
 * Builds every package (turbo, cached), then packs each into `dest` (emptied first). Returns
 * the packages and a map name → absolute tarball path. The prepack guard of each package
 * refuses to pack one whose build output is missing, so a failed build cannot pack empty.
 */
export function packAll(dest = join(root, '.packs'), { quiet = false } = {}) {
  const packages = workspacePackages()
  const stdio = ['ignore', quiet ? 'pipe' : 2, 2]
  // Through pnpm, so turbo finds its package manager on PATH however this script was started.
  const filters = [...packages.keys()].map((n) => `--filter=${n}`)
  execFileSync(
    'npx',
    ['-y', 'pnpm@12.4.2', 'exec', 'turbo', 'run', 'build', ...filters, '--output-logs=errors-only'],
    { cwd: root, stdio },
  )
  rmSync(dest, { recursive: true, force: true })
  mkdirSync(dest, { recursive: true })
  const tarballs = new Map()
  for (const [name, { dir }] of packages) {
    const out = execFileSync('npx', ['-y', 'pnpm@12.4.2', 'pack', '--pack-destination', dest], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 2],
      encoding: 'utf8',
    })
    // pnpm prints the file list, then the tarball's path (or name) on the last line.
    const file = out.trim().split('\n').pop().trim()
    tarballs.set(name, join(dest, basename(file)))
  }
  return { packages, tarballs }
}

/** The `npm install` line for `name`: its tarball and those of its tollgate dependencies. */
export function installLine(packages, tarballs, name) {
  const files = [...tarballClosure(packages, name)].map((n) => tarballs.get(n))
  return `npm install ${files.join(' ')}`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const wanted = process.argv.slice(2)
  const { packages, tarballs } = packAll()
  for (const name of wanted) {
    if (!packages.has(name)) {
      process.stderr.write(
        `pack:all: no package named ${name} (one of ${[...packages.keys()].join(', ')})\n`,
      )
      process.exit(2)
    }
  }
  process.stdout.write(`Packed ${tarballs.size} packages into ${join(root, '.packs')}.\n`)
  process.stdout.write(
    'To add one to another project, run its line there (paths are absolute):\n\n',
  )
  for (const name of wanted.length > 0 ? wanted : packages.keys()) {
    process.stdout.write(`# ${name}\n${installLine(packages, tarballs, name)}\n`)
  }
}
