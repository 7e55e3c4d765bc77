// The SDK line a run uses is the one its vitest project names (sdk1: 1.32, sdk2: 2.x), here and
// in a child process started the way the stdio sessions start theirs: so the sdk2 run of the
// wire tests is a run on 2.x, not a second run on 1.32.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { SDK } from './helpers/sdk-line.js'

const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url))

describe('the SDK line of this run', () => {
  it('is the one TOLLGATE_SDK_LINE names, in this process and in a stdio child', () => {
    const expected = process.env.TOLLGATE_SDK_LINE === '2' ? '2' : '1'
    expect(SDK.line).toBe(expected)
    const script = `const { SDK } = await import('./test/helpers/sdk-line.ts'); console.log(SDK.line)`
    const child = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: PACKAGE_DIR, encoding: 'utf8' },
    )
    expect(child.trim()).toBe(expected)
  })
})
