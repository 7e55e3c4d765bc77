#!/usr/bin/env node
// pnpm adoption [package…]: a stranger's walk from an empty folder with only a package README,
// one section at a time (see README.md beside this file). Packs every package as the READMEs
// say (`pnpm pack:all`), then for each walk: an empty project in the temp folder, the README's
// install line installed offline, the README's snippet written as printed and run, one good
// and one bad request, the documented status and code asserted. Prints one line per walk and
// writes docs/adoption.md. Not in the test suite; exits 1 when a walk fails.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { packAll, tarballClosure } from '../../scripts/pack-all.mjs'
import {
  commit,
  freePort,
  installNames,
  installOffline,
  lastLine,
  linkTypes,
  root,
  runToEnd,
  snippet,
  startChild,
  typecheck,
  WalkFailure,
  waitForHttp,
  workspacePins,
} from './lib.mjs'
import { declarationWalk } from './types-walk.mjs'
import { WALKS } from './walks.mjs'

/**
 * The Node the snippets run on: TypeScript snippets run as printed, so it must strip types
 * (22.18 or later). This Node when it does, else ADOPTION_NODE, else CONFORMANCE_NODE, else the
 * Node 24 `.ci/run` unpacks into `.cache/node24`.
 */
function walkNode() {
  const { ADOPTION_NODE, CONFORMANCE_NODE } = process.env
  const candidates = [
    process.execPath,
    ADOPTION_NODE,
    CONFORMANCE_NODE,
    join(root, '.cache', 'node24', 'bin', 'node'),
  ]
  for (const bin of candidates) {
    if (!bin || !existsSync(bin)) continue
    const strips = spawnSync(bin, ['-p', 'process.features.typescript ?? ""'], { encoding: 'utf8' })
    if (strips.stdout?.trim()) return bin
  }
  console.error(
    'adoption: TypeScript snippets need a Node that strips types (22.18+): set ADOPTION_NODE',
  )
  process.exit(2)
}
const node = walkNode()
const nodeVersion = execFileSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).trim()
const only = process.argv.slice(2).filter((a) => a !== '--')
const walks = WALKS.filter((w) => only.length === 0 || only.includes(w.pkg))

/** Every bare package an ES module's source imports (node: builtins left out). */
function importedPackages(code) {
  const names = new Set()
  for (const m of code.matchAll(
    /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"./][^'"]*)['"]/g,
  )) {
    const spec = m[1]
    if (spec.startsWith('node:')) continue
    const parts = spec.split('/')
    names.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0])
  }
  return names
}

async function walk(w, packages, tarballs, pins) {
  if (w.kind === 'types') {
    const tollgate = new Map()
    for (const dep of tarballClosure(packages, `@tollgate/${w.pkg}`))
      tollgate.set(dep, tarballs.get(dep))
    return declarationWalk(tollgate, pins)
  }
  const readme = `packages/${w.pkg}/README.md`
  const found = snippet(readme, w.snippet)
  if (found === null)
    throw new WalkFailure(
      `the README shows no runnable snippet for this section (looked for ${JSON.stringify(w.snippet.marker)})`,
    )
  const named = installNames(readme, `@tollgate/${w.pkg}`, w.install ?? [])
  if (named.length === 0) throw new WalkFailure('the README shows no npm install line')
  const tollgate = new Map()
  const specs = []
  for (const name of [...named, ...(w.frameworks ?? [])]) {
    if (packages.has(name)) {
      for (const dep of tarballClosure(packages, name)) tollgate.set(dep, tarballs.get(dep))
    } else if (pins.has(name)) specs.push(`${name}@${pins.get(name)}`)
    else
      throw new WalkFailure(
        `the README installs ${name}, which the workspace does not pin (not in the offline store)`,
      )
  }
  const installed = new Set([...tollgate.keys(), ...specs.map((s) => s.replace(/@[^@]+$/, ''))])
  const missing = [...importedPackages(found.code)].filter((n) => !installed.has(n))
  if (missing.length > 0)
    throw new WalkFailure(
      `the snippet imports ${missing.join(', ')}, which the README's install line does not name`,
    )

  const ts = ['ts', 'typescript'].includes(found.lang)
  const dir = mkdtempSync(join(tmpdir(), `adoption-${w.pkg}-`))
  try {
    writeFileSync(
      join(dir, 'package.json'),
      '{ "name": "adoption-walk", "private": true, "type": "module" }\n',
    )
    const types = specs.filter((s) => s.startsWith('@types/'))
    const installer = installOffline(
      dir,
      tollgate,
      specs.filter((s) => !types.includes(s)),
    )
    linkTypes(dir, types)
    const file = ts ? 'index.ts' : 'index.mjs'
    writeFileSync(join(dir, file), found.code)
    if (ts) {
      const exact = w.exactOptionalPropertyTypes ?? true
      const error = typecheck(dir, file, exact)
      const flags = exact ? 'strict, exactOptionalPropertyTypes, nodenext' : 'strict, nodenext'
      if (error !== null) throw new WalkFailure(`tsc (${flags}): ${error}`)
    }
    if (w.kind === 'script') {
      const run = await runToEnd(node, dir, file)
      if (run.code !== 0) throw new WalkFailure(`exited ${run.code}: ${lastLine(run.err)}`)
      for (const c of w.check) c(run)
    } else {
      const port = await freePort()
      const child = startChild(node, dir, file, { PORT: String(port) })
      try {
        if (w.kind === 'http') {
          await waitForHttp(child, port)
          await w.check(port)
        } else await w.check(child)
      } finally {
        child.kill('SIGKILL')
        await child.exited
      }
    }
    return installer
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

console.log(`adoption: packing (pnpm pack:all); walks run on Node ${nodeVersion}`)
const { packages, tarballs } = packAll(undefined, { quiet: true })
const pins = workspacePins()
const results = []
for (const w of walks) {
  const started = Date.now()
  let result
  try {
    const installer = await walk(w, packages, tarballs, pins)
    result = { ...w, ok: true, installer, stop: '' }
  } catch (error) {
    const stop =
      error instanceof WalkFailure
        ? error.message
        : `${error?.code ?? ''} ${error?.message ?? error}`.trim()
    result = { ...w, ok: false, installer: '', stop }
  }
  result.seconds = Math.round((Date.now() - started) / 1000)
  results.push(result)
  console.log(
    `${w.pkg} | ${w.section} | ${result.ok ? 'pass' : 'fail'}${result.ok ? '' : ` | ${result.stop}`}`,
  )
}

if (only.length === 0) {
  const rows = results.map(
    (r) =>
      `| ${r.pkg} | ${r.section} | ${r.bad} | ${r.installer || '—'} | ${r.ok ? 'pass' : `**fail**: ${r.stop.replaceAll('|', '\\|')}`} |`,
  )
  const passed = results.filter((r) => r.ok).length
  const doc = readFileSync(new URL('./doc-head.md', import.meta.url), 'utf8')
    .replace('{{date}}', new Date().toISOString())
    .replace('{{commit}}', commit())
    .replace('{{node}}', nodeVersion)
    .replace('{{summary}}', `${passed} of ${results.length} walks pass`)
  writeFileSync(join(root, 'docs/adoption.md'), `${doc}${rows.join('\n')}\n`)
  console.log(
    `adoption: ${passed} passed, ${results.length - passed} failed; wrote docs/adoption.md`,
  )
}
process.exitCode = results.every((r) => r.ok) ? 0 : 1
