// Checks on the built package (dist): importing it loads no MCP SDK module, so it runs under a
// server of either SDK line (1.32 or 2.x) with only that line installed.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { requiredFilesOf, resolvedUrlsOf } from '@tollgate/test-kit/loaded-modules'
import { describe, expect, it } from 'vitest'

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))
const CJS = fileURLToPath(new URL('../dist/index.cjs', import.meta.url))

describe('package root', () => {
  it('loads no MCP SDK module when imported', () => {
    const script = `require(${JSON.stringify(CJS)});
const loaded = Object.keys(require.cache);
console.log(JSON.stringify({
  sdk: loaded.filter((k) => k.includes('@modelcontextprotocol')).length,
  count: loaded.length,
}))`
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))
    expect(out.sdk).toBe(0)
    expect(out.count).toBeGreaterThan(1)
  })
})

// The HTTP stack and the SDK client as they appear in a resolved URL or a loaded file path.
const HTTP_STACK = [/[\\/]http-admission[\\/]/, /[\\/]lexical-preflight[\\/]/]
const SDK_CLIENT = [/@modelcontextprotocol[\\/]sdk[\\/].*client/, /inMemory/]

describe('the root entry', () => {
  it('loads neither the HTTP stack nor the SDK Client and InMemoryTransport (ESM and CJS)', () => {
    const esm = resolvedUrlsOf('@tollgate/mcp-validation', PACKAGE_DIR)
    // The probe sees the decorator base it does load, from mcp-transport's subpath.
    expect(esm.some((url) => url.endsWith('/mcp-transport/dist/decorator.js'))).toBe(true)
    const cjs = requiredFilesOf('@tollgate/mcp-validation', PACKAGE_DIR)
    expect(cjs.some((file) => file.endsWith('decorator.cjs'))).toBe(true)
    for (const loaded of [...esm, ...cjs]) {
      for (const heavy of [...HTTP_STACK, ...SDK_CLIENT]) expect(loaded).not.toMatch(heavy)
    }
  })

  it('sees the HTTP stack and the SDK client when they are loaded (the probe works)', () => {
    // The control: the same probe, on what the root entry used to load through its imports.
    const transport = resolvedUrlsOf('@tollgate/mcp-transport', PACKAGE_DIR)
    for (const heavy of HTTP_STACK) expect(transport.some((url) => heavy.test(url))).toBe(true)
    const client = resolvedUrlsOf('@modelcontextprotocol/sdk/client/index.js', PACKAGE_DIR)
    expect(client.some((url) => SDK_CLIENT[0]?.test(url))).toBe(true)
    const memory = resolvedUrlsOf('@modelcontextprotocol/sdk/inMemory.js', PACKAGE_DIR)
    expect(memory.some((url) => SDK_CLIENT[1]?.test(url))).toBe(true)
  })
})
