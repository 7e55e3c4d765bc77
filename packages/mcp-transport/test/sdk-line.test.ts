// The SDK line a run uses is the one its vitest project names (sdk1: 1.32, sdk2: 2.x), here and
// in the stdio fixture's child process: so the sdk2 run of the wire tests is a run on 2.x, not a
// second run on 1.32.
import { describe, expect, it } from 'vitest'
import { SDK } from './helpers/sdk-line.js'
import { StdioChild } from './helpers/stdio-child.js'

describe('the SDK line of this run', () => {
  it('is the one TOLLGATE_SDK_LINE names, in this process and in the stdio child', async () => {
    const expected = process.env.TOLLGATE_SDK_LINE === '2' ? '2' : '1'
    expect(SDK.line).toBe(expected)
    expect(SDK.name).toMatch(
      expected === '2'
        ? /^@modelcontextprotocol\/server 2\./
        : /^@modelcontextprotocol\/sdk 1\.32\./,
    )
    const child = await StdioChild.start(['bounded'])
    try {
      expect(child.stderr).toContain(`ready sdk=${expected}`)
    } finally {
      await child.stop()
    }
  })
})
