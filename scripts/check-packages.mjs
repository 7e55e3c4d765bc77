#!/usr/bin/env node
// "Install single packages" is checked, not assumed. For each package under packages/:
// pack it with pnpm (workspace: ranges become versions), install that tarball with npm into an
// empty folder outside the workspace together with the tarballs of the tollgate packages it
// depends on (and nothing else from the workspace), then import every export path from ESM and
// from CommonJS and typecheck an import of each from .mts and .cts files. publint and
// @arethetypeswrong/cli check each tarball's package.json and types. The gateway is then run
// from its tarballs (check-gateway-tarball.mjs).
import { execFileSync, spawnSync } from 'node:child_process'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkGatewayFromTarballs } from './check-gateway-tarball.mjs'
import { packAll, tarballClosure, workspacePackages } from './pack-all.mjs'

const root = new URL('..', import.meta.url).pathname
const bin = (name) => join(root, 'node_modules', '.bin', name)
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })

// The prepack guard, through `pnpm pack` itself: each package's own manifest, copied without
// its build output (and with the guard at the same relative path), must refuse to pack; the
// first one, with its prepack removed, must then pack (the empty tarball the guard prevents).
function packUnbuilt(dir, withGuard) {
  const copy = mkdtempSync(join(tmpdir(), 'tollgate-unbuilt-'))
  try {
    mkdirSync(join(copy, 'scripts'))
    mkdirSync(join(copy, 'packages', 'p'), { recursive: true })
    copyFileSync(
      join(root, 'scripts', 'prepack-guard.mjs'),
      join(copy, 'scripts', 'prepack-guard.mjs'),
    )
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    if (!withGuard) delete manifest.scripts.prepack
    // Outside the workspace `workspace:` ranges cannot resolve: pinned here, so the guard is
    // the only reason left for a refusal.
    delete manifest.devDependencies
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      if (manifest.dependencies[dep].startsWith('workspace:')) manifest.dependencies[dep] = '0.0.0'
    }
    writeFileSync(join(copy, 'packages', 'p', 'package.json'), JSON.stringify(manifest))
    const packed = spawnSync('npx', ['-y', 'pnpm@12.4.2', 'pack', '--pack-destination', copy], {
      cwd: join(copy, 'packages', 'p'),
      encoding: 'utf8',
    })
    const tarball = packed.status === 0 && readdirSync(copy).some((f) => f.endsWith('.tgz'))
    if (withGuard && !tarball && !`${packed.stdout}${packed.stderr}`.includes('refusing to pack')) {
      throw new Error(`pnpm pack failed for another reason: ${packed.stderr.slice(-500)}`)
    }
    return tarball
  } finally {
    rmSync(copy, { recursive: true, force: true })
  }
}
const manifests = [...workspacePackages()]
for (const [name, { dir }] of manifests) {
  if (packUnbuilt(dir, true)) {
    console.error(`FAIL ${name}: pnpm pack packed it without its build output`)
    process.exitCode = 1
  }
}
if (!packUnbuilt(manifests[0][1].dir, false)) {
  console.error('FAIL prepack guard check: without the guard the unbuilt copy did not pack either')
  process.exitCode = 1
}

// The same build and pack as `pnpm pack:all`, so the command the READMEs name is the one checked.
const work = mkdtempSync(join(tmpdir(), 'tollgate-pack-'))
const { packages, tarballs } = packAll(work, { quiet: true })
const closure = (name) => tarballClosure(packages, name)

let failures = 0
const only = process.argv.slice(2)
for (const [name, { manifest }] of packages) {
  if (only.length > 0 && !only.includes(name)) continue
  const started = Date.now()
  const folder = mkdtempSync(join(tmpdir(), 'tollgate-install-'))
  try {
    writeFileSync(join(folder, 'package.json'), '{"name":"consumer","private":true}\n')
    const own = [...closure(name)].map((n) => tarballs.get(n))
    // npm installs required peers (the MCP SDK) and leaves optional ones (redis) out, which
    // also proves that importing a package root does not load an optional peer.
    run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline', ...own],
      folder,
    )
    const subpaths = Object.keys(manifest.exports).filter((p) => p !== './package.json')
    const specifiers = subpaths.map((p) => (p === '.' ? name : `${name}/${p.slice(2)}`))
    for (const spec of specifiers) {
      const check = `if (Object.keys(m).length === 0) { console.error('no exports'); process.exit(1) }`
      run('node', ['--input-type=module', '-e', `import * as m from '${spec}'; ${check}`], folder)
      run('node', ['-e', `const m = require('${spec}'); ${check}`], folder)
    }
    const esmImports = specifiers.map(
      (s, i) => `import * as m${i} from '${s}'\nexport type T${i} = typeof m${i}`,
    )
    const cjsImports = specifiers.map(
      (s, i) => `import m${i} = require('${s}')\nexport type T${i} = typeof m${i}`,
    )
    writeFileSync(join(folder, 'check.mts'), `${esmImports.join('\n')}\n`)
    writeFileSync(join(folder, 'check.cts'), `${cjsImports.join('\n')}\n`)
    run(
      bin('tsc'),
      [
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--types',
        'node',
        '--typeRoots',
        join(root, 'node_modules/@types'),
        'check.mts',
        'check.cts',
      ],
      folder,
    )
    // The workspace-only `@tollgate/source` condition points at src/, which is not packed:
    // publishConfig.exports must have replaced the exports map in the tarball.
    const packed = JSON.parse(
      run('tar', ['-xOzf', tarballs.get(name), 'package/package.json'], root),
    )
    if (JSON.stringify(packed.exports).includes('@tollgate/source')) {
      throw new Error('the packed exports still hold the @tollgate/source condition')
    }
    run(bin('publint'), ['run', '--strict', tarballs.get(name)], root)
    run(bin('attw'), ['--profile', 'node16', '--format', 'ascii', tarballs.get(name)], root)
    const ran =
      name === '@tollgate/gateway' ? `; ${await checkGatewayFromTarballs(folder, root)}` : ''
    console.log(
      `ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s): installed alone (${own.length} tarball${own.length > 1 ? 's' : ''}), ${specifiers.length} export path(s) imported from ESM and CJS, types resolve, publint and attw clean${ran}`,
    )
  } catch (error) {
    failures++
    console.error(`FAIL ${name}: ${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`)
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}
rmSync(work, { recursive: true, force: true })
process.exit(failures === 0 && process.exitCode !== 1 ? 0 : 1)
