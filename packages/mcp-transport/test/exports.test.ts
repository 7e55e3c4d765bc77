// Checks on the built package (dist): what importing the root loads.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { requiredFilesOf, resolvedUrlsOf } from '@tollgate/test-kit/loaded-modules'
import { describe, expect, it } from 'vitest'

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))
const CJS = fileURLToPath(new URL('../dist/index.cjs', import.meta.url))

describe('package root', () => {
  it('does not load the MCP SDK or express when imported', () => {
    const script = `require(${JSON.stringify(CJS)});
const loaded = Object.keys(require.cache);
console.log(JSON.stringify({
  sdk: loaded.some((k) => k.includes('@modelcontextprotocol')),
  express: loaded.some((k) => /[\\\\/]express[\\\\/]/.test(k)),
  count: loaded.length,
}))`
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))
    expect(out.sdk).toBe(false)
    expect(out.express).toBe(false)
    expect(out.count).toBeGreaterThan(1)
  })
})

// The HTTP stack and the SDK client, as they appear in a resolved URL or a loaded file path.
const HEAVY = [/[\\/]http-admission[\\/]/, /[\\/]lexical-preflight[\\/]/, /@modelcontextprotocol/]

describe('the ./decorator subpath', () => {
  it('loads neither the HTTP stack nor the MCP SDK (ESM and CJS)', () => {
    // This package's own dist, wherever it lies (Stryker runs the test from a sandbox copy).
    const esm = resolvedUrlsOf('@tollgate/mcp-transport/decorator', PACKAGE_DIR)
    expect(esm).toContain(pathToFileURL(join(PACKAGE_DIR, 'dist', 'decorator.js')).href)
    const cjs = requiredFilesOf('@tollgate/mcp-transport/decorator', PACKAGE_DIR)
    expect(cjs).toContain(join(PACKAGE_DIR, 'dist', 'decorator.cjs'))
    for (const loaded of [...esm, ...cjs]) {
      for (const heavy of HEAVY) expect(loaded).not.toMatch(heavy)
    }
  })

  it('is seen to load the HTTP stack when the root entry is imported instead', () => {
    // The control: the same probe on the root entry sees http-admission and the preflight.
    const esm = resolvedUrlsOf('@tollgate/mcp-transport', PACKAGE_DIR)
    expect(esm.some((url) => HEAVY[0]?.test(url))).toBe(true)
    expect(esm.some((url) => HEAVY[1]?.test(url))).toBe(true)
  })
})
