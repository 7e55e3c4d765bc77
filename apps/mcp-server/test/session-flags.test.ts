// The session and audit flags of parseCli (imported from src: option parsing only; what the
// flags do on the live server is held by test/fair-admission.test.ts).
import { describe, expect, it } from 'vitest'
import { DEFAULT_AUDIT_REPEAT_WINDOW_MS } from '../src/audit.js'
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, parseCli } from '../src/cli.js'

const parse = (args: string[]) => {
  const cli = parseCli(args)
  if (cli === 'help') throw new Error('help')
  return cli
}

describe('parseCli session flags', () => {
  it('defaults to 1,000 sessions, a tenth per credential, 10 minutes idle and a 10 s audit window', () => {
    const cli = parse([])
    expect(cli.maxSessions).toBe(DEFAULT_MAX_SESSIONS)
    expect(cli.maxSessionsPerCredential).toBe(100)
    expect(cli.sessionIdleMs).toBe(DEFAULT_SESSION_IDLE_MS)
    expect(cli.auditRepeatWindowMs).toBe(DEFAULT_AUDIT_REPEAT_WINDOW_MS)
    expect([DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS]).toEqual([1000, 600_000])
    expect(parse(['--max-sessions', '25']).maxSessionsPerCredential).toBe(3)
    expect(parse(['--audit-repeat-window-ms', '0']).auditRepeatWindowMs).toBe(0)
  })

  it('refuses a bad value naming the flag, and a per-credential quota above the cap', () => {
    expect(() => parse(['--max-sessions', '0'])).toThrow(/--max-sessions/)
    expect(() => parse(['--session-idle-ms', '-1'])).toThrow(/--session-idle-ms/)
    expect(() => parse(['--audit-repeat-window-ms', 'x'])).toThrow(/--audit-repeat-window-ms/)
    expect(() => parse(['--max-sessions', '4', '--max-sessions-per-credential', '5'])).toThrow(
      /--max-sessions-per-credential/,
    )
  })
})
