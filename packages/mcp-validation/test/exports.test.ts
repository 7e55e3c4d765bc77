// Checks on the built package (dist): importing it loads no MCP SDK module, so it runs under a
// server of either SDK line (1.32 or 2.x) with only that line installed.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

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
