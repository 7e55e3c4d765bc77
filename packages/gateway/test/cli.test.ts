import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { GATEWAY_CLI_OPTIONS } from '../src/cli-option-table.js'
import { CLI } from './fixtures/run-gateway.js'

function run(args: readonly string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 })
}

describe('tollgate-gateway (the CLI)', () => {
  it('lists every option with its default in --help', () => {
    const help = run(['--help'])
    expect(help.status).toBe(0)
    for (const option of GATEWAY_CLI_OPTIONS) {
      const line = help.stdout.split('\n').find((l) => l.trimStart().startsWith(`${option.flag} `))
      expect(line, option.flag).toBeDefined()
      expect(line).toContain(
        `(default: ${option.value === undefined ? 'none' : String(option.value)})`,
      )
    }
  })

  it('refuses a non-loopback --host without --config at start', () => {
    const result = run(['--host', '0.0.0.0', '--', process.execPath, '-e', ''])
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('--host')
  })

  it('refuses to start without an upstream, and on an unknown option', () => {
    expect(run([]).status).toBe(2)
    expect(run(['--no-such-option', '--', 'x']).status).toBe(2)
    expect(run(['--port', '70000', '--', 'x']).status).toBe(2)
  })

  it('fails at start-up on a config file that fails its schema, naming the path', () => {
    const result = run(['--config', '/nonexistent/gateway.json', '--', 'x'])
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('(file)')
  })
})
