// The TypeScript walk: the declaration fixtures of tools/repo-checks (a project on SDK 1.32 and
// one on SDK 2.x composing the bounded transport, the result budget and input validation)
// compiled against the packed tarballs, installed as the mcp-validation README says, under
// `strict` and `exactOptionalPropertyTypes` with each module resolution a project may use.
// tools/repo-checks/test/declaration-types.test.ts compiles the same fixtures against the
// workspace's package folders; this proves the tarballs (their `files`, `exports` and
// `typesVersions`) carry what those folders do.

import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { installOffline, linkTypes, root, WalkFailure } from './lib.mjs'

const FIXTURES = join(root, 'tools/repo-checks/test/fixtures/declaration-types')

const SETTINGS = [
  ['node16', ['--module', 'node16', '--moduleResolution', 'node16']],
  ['nodenext', ['--module', 'nodenext', '--moduleResolution', 'nodenext']],
  ['bundler', ['--module', 'esnext', '--moduleResolution', 'bundler']],
  ['node10', ['--module', 'commonjs', '--moduleResolution', 'node10', '--esModuleInterop']],
]

/** Installs, compiles each fixture under each setting; throws a WalkFailure naming the first that fails. */
export function declarationWalk(tollgate, pins) {
  const dir = mkdtempSync(join(tmpdir(), 'adoption-types-'))
  try {
    writeFileSync(
      join(dir, 'package.json'),
      '{ "name": "adoption-types", "private": true, "type": "module" }\n',
    )
    const third = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', 'zod']
    // The tarballs as the README's line installs them; the SDKs and zod from the workspace's
    // installed copies (pnpm's offline resolution of SDK 1.32 picks releases its store lacks).
    const installer = installOffline(dir, tollgate, [])
    linkTypes(
      dir,
      [...third, '@types/node'].map((n) => `${n}@${pins.get(n)}`),
    )
    cpSync(FIXTURES, dir, { recursive: true })
    const tsc = join(root, 'node_modules/typescript/bin/tsc')
    const compiled = []
    for (const [name, flags] of SETTINGS) {
      // node10 reads no `exports`; the v2 SDK publishes for `exports` only, so sdk2 is skipped there.
      for (const fixture of name === 'node10' ? ['sdk1.ts'] : ['sdk1.ts', 'sdk2.ts']) {
        const args = ['--noEmit', '--strict', '--exactOptionalPropertyTypes', '--target', 'es2022']
        const run = spawnSync(
          process.execPath,
          [tsc, ...args, '--types', 'node', ...flags, fixture],
          {
            cwd: dir,
            encoding: 'utf8',
          },
        )
        if (run.status !== 0) {
          const first = run.stdout.split('\n').find((l) => l.includes('error TS')) ?? run.stdout
          throw new WalkFailure(`${fixture} under ${name}: ${first.trim().slice(0, 300)}`)
        }
        compiled.push(`${fixture}/${name}`)
      }
    }
    return `${installer}; ${compiled.length} compilations`
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
