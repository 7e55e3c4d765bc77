// Checks on the built package (dist, through its `exports`): the root entry loads no framework,
// and each adapter is its own subpath, in ESM and CJS, loading no framework until it needs one
// (Hono's HTTPException on a first refusal), so the tarball installs and imports without them.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { requiredFilesOf, resolvedUrlsOf } from '@tollgate/test-kit/loaded-modules'
import { describe, expect, it } from 'vitest'

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))
const FRAMEWORKS = [/[\\/]fastify[\\/]/, /[\\/]hono[\\/]/, /[\\/]koa[\\/]/]
const ADAPTERS = [
  ['fastify', 'fastifyAdmission'],
  ['hono', 'honoAdmission'],
  ['koa', 'koaAdmission'],
] as const

describe('the root entry', () => {
  it('loads no framework (ESM and CJS)', () => {
    const esm = resolvedUrlsOf('@tollgate/http-admission', PACKAGE_DIR)
    const cjs = requiredFilesOf('@tollgate/http-admission', PACKAGE_DIR)
    expect(esm.some((url) => url.endsWith('/http-admission/dist/index.js'))).toBe(true)
    for (const loaded of [...esm, ...cjs]) {
      for (const framework of FRAMEWORKS) expect(loaded).not.toMatch(framework)
    }
  })

  it('control: the probe sees each framework when it is imported', () => {
    for (const [i, name] of ['fastify', 'hono', 'koa'].entries()) {
      const esm = resolvedUrlsOf(name, PACKAGE_DIR)
      expect(
        esm.some((url) => FRAMEWORKS[i]!.test(url)),
        name,
      ).toBe(true)
    }
  })

  it('loads no framework from an adapter subpath either: the adapters type them structurally', () => {
    for (const name of ['fastify', 'hono', 'koa']) {
      const esm = resolvedUrlsOf(`@tollgate/http-admission/${name}`, PACKAGE_DIR)
      for (const framework of FRAMEWORKS) expect(esm.join('\n')).not.toMatch(framework)
    }
  })
})

describe.each(ADAPTERS)('the /%s subpath', (name, exported) => {
  it(`exports ${exported} as a function, in ESM and CJS`, () => {
    const specifier = `@tollgate/http-admission/${name}`
    const esm = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import('${specifier}'); console.log(typeof m.${exported})`,
      ],
      { cwd: PACKAGE_DIR, encoding: 'utf8' },
    )
    const cjs = execFileSync(
      process.execPath,
      ['-e', `console.log(typeof require('${specifier}').${exported})`],
      { cwd: PACKAGE_DIR, encoding: 'utf8' },
    )
    expect([esm.trim(), cjs.trim()]).toEqual(['function', 'function'])
  })
})
