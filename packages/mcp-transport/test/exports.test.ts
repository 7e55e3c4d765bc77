// Checks on the built package (dist): what importing the root loads.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

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
