// The root `pnpm start` (scripts/start.mjs) in stdio mode, as a real child: stdout carries
// JSON-RPC only. The real build (turbo) is stood in for by a build that writes a banner to its
// stdout (TOLLGATE_START_BUILD), because running turbo here would restore dist/ under the other
// test files; the real `pnpm start --stdio` was measured by hand (README, "Start").
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { initializeRequest } from '@tollgate/test-kit/mcp-initialize'
import { describe, expect, it } from 'vitest'

const START = fileURLToPath(new URL('../scripts/start.mjs', import.meta.url))
const BANNER = '• turbo 2.11.11 (stand-in) >>> FULL TURBO'

/** Runs start.mjs with `args` and a stand-in build; writes `input`, then ends stdin. */
function runStart(
  args: string[],
  build: string,
  input: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [START, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TOLLGATE_START_BUILD: JSON.stringify([process.execPath, '-e', build]) },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c
  })
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c
  })
  child.stdin.on('error', () => {})
  child.stdin.end(input)
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })))
}

describe('scripts/start.mjs', () => {
  it('writes only JSON-RPC messages to stdout in stdio mode while the build prints a banner to its stdout', async () => {
    const input = [
      initializeRequest(0),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 1, method: 'ping' },
    ]
      .map((m) => `${JSON.stringify(m)}\n`)
      .join('')
    const run = await runStart(['--stdio'], `console.log(${JSON.stringify(BANNER)})`, input)
    const lines = run.stdout.split('\n').filter((l) => l !== '')
    expect(lines.map((l) => JSON.parse(l).id)).toEqual([0, 1])
    for (const line of lines) expect(JSON.parse(line).jsonrpc).toBe('2.0')
    // Not silenced: the build's output reached the person, on stderr.
    expect(run.stderr).toContain(BANNER)
  })

  it('writes one line on stderr naming the build before the build writes anything', async () => {
    const run = await runStart(['--stdio'], `console.log(${JSON.stringify(BANNER)})`, '')
    const first = run.stderr.split('\n')[0] ?? ''
    expect(first).toMatch(/^start: building /)
    expect(run.stderr.indexOf(first)).toBeLessThan(run.stderr.indexOf(BANNER))
    expect(run.stdout).toBe('')
  })

  it('does not start the server when the build fails, and writes nothing to stdout', async () => {
    const run = await runStart(
      ['--stdio'],
      `console.log(${JSON.stringify(BANNER)}); process.exit(3)`,
      '',
    )
    expect(run.code).toBe(3)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('start: the build failed')
  })
})
