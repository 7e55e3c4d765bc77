import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as budget from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../src/check.js'

// In the workspace a package imports its dependencies' source (the `@tollgate/source` export
// condition, which vitest.shared.mjs and tsconfig.base.json resolve), so a test never runs a
// stale build; what is packed and published resolves to dist/ only.
const CONDITION = '@tollgate/source'

interface Manifest {
  readonly name: string
  readonly exports: Record<string, string | Record<string, unknown>>
  readonly publishConfig?: { readonly exports?: Record<string, unknown> }
}

const manifests = readdirSync(join(REPO_ROOT, 'packages')).map((dir) => ({
  dir: join(REPO_ROOT, 'packages', dir),
  manifest: JSON.parse(
    readFileSync(join(REPO_ROOT, 'packages', dir, 'package.json'), 'utf8'),
  ) as Manifest,
}))

describe('the @tollgate/source export condition', () => {
  it('resolves a workspace import in vitest to the dependency source, not its build', async () => {
    expect(budget).toBe(await import('../../../packages/json-budget/src/index.js'))
    expect(budget).not.toBe(await import('../../../packages/json-budget/dist/index.js'))
    const redis = await import('@tollgate/continuation/redis')
    expect(redis).toBe(await import('../../../packages/continuation/src/redis.js'))
  })

  it('is not seen by a node process the tests spawn, which loads the build', () => {
    const resolved = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "console.log(import.meta.resolve('@tollgate/json-budget'))"],
      { cwd: join(REPO_ROOT, 'tools', 'repo-checks'), encoding: 'utf8' },
    ).trim()
    expect(resolved).toMatch(/\/packages\/json-budget\/dist\/index\.js$/)
  })

  it('comes first in every export of every package, naming a source file that exists', () => {
    for (const { dir, manifest } of manifests) {
      for (const [subpath, entry] of Object.entries(manifest.exports)) {
        if (typeof entry === 'string') continue
        const first = Object.entries(entry)[0]
        expect([manifest.name, subpath, first?.[0]]).toEqual([manifest.name, subpath, CONDITION])
        expect(existsSync(join(dir, String(first?.[1]))), `${manifest.name} ${subpath}`).toBe(true)
      }
    }
  })

  it('is left out of what is published: publishConfig.exports is exports without it', () => {
    for (const { manifest } of manifests) {
      const published = Object.fromEntries(
        Object.entries(manifest.exports).map(([subpath, entry]) => {
          if (typeof entry === 'string') return [subpath, entry]
          const { [CONDITION]: _source, ...rest } = entry
          return [subpath, rest]
        }),
      )
      expect([manifest.name, manifest.publishConfig?.exports]).toEqual([manifest.name, published])
    }
  })
})
