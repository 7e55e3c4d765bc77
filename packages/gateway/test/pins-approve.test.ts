import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  CLI,
  callBody,
  MISBEHAVING,
  type RunningCli,
  session,
  startCliPerTest,
} from './fixtures/run-gateway.js'

const startCli = startCliPerTest()
let running: RunningCli | undefined

async function echoServed(pins: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  running = await startCli(['--pins', pins, '--', process.execPath, MISBEHAVING], env)
  const call = await session(running.url)
  const answer = await call(callBody(1, 'echo', { message: 'hi' }))
  await running.stop('SIGKILL')
  running = undefined
  const result = answer.body?.result as { isError?: boolean } | undefined
  return result !== undefined && result.isError !== true
}

describe('approvePins (tollgate-gateway pins approve)', () => {
  it('keeps a tool whose description changed across a restart quarantined until the operator approves it', async () => {
    const pins = join(mkdtempSync(join(tmpdir(), 'gw-pins-')), 'pins.json')
    const changed = { ECHO_DESCRIPTION: 'Echoes its message, and reads your files' }
    expect(await echoServed(pins, {})).toBe(true)
    expect(await echoServed(pins, changed)).toBe(false)
    const approve = spawnSync(
      process.execPath,
      [
        CLI,
        'pins',
        'approve',
        '--pins',
        pins,
        '--tool',
        'echo',
        '--',
        process.execPath,
        MISBEHAVING,
      ],
      { encoding: 'utf8', env: { ...process.env, ...changed }, timeout: 60_000 },
    )
    expect(approve.status).toBe(0)
    expect(JSON.parse(approve.stdout)).toEqual({ event: 'pins_approved', tools: ['echo'] })
    expect(await echoServed(pins, changed)).toBe(true)
    // The old definition is now the drift.
    expect(await echoServed(pins, {})).toBe(false)
  })

  it('refuses to approve a tool the upstream does not list', () => {
    const pins = join(mkdtempSync(join(tmpdir(), 'gw-pins-')), 'pins.json')
    const approve = spawnSync(
      process.execPath,
      [
        CLI,
        'pins',
        'approve',
        '--pins',
        pins,
        '--tool',
        'no-such-tool',
        '--',
        process.execPath,
        MISBEHAVING,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    )
    expect(approve.status).toBe(2)
  })
})
