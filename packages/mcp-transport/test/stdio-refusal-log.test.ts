// Bounded refusal logs through a real child process (test/fixtures/stdio-server.mjs on the
// built package, `--log-errors` writing one stderr line per server.onerror call).
import { afterEach, describe, expect, it } from 'vitest'
import { StdioChild } from './helpers/stdio-child.js'

const REFUSALS = 5_000
const children: StdioChild[] = []

async function start(args: string[]): Promise<StdioChild> {
  const child = await StdioChild.start(args, { keepRaw: false })
  children.push(child)
  return child
}

afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => c.stop()))
})

describe('BoundedStdioServerTransport refusal reports', () => {
  it(`reports ${REFUSALS.toLocaleString('en-US')} refused lines of one code as two onerror lines, the second counting the repeats`, async () => {
    // A window far longer than the run: every repeat falls in it, and the close reports the count.
    const child = await start(['bounded', '--log-errors', '--refusal-window-ms=600000'])
    child.write('x\n'.repeat(REFUSALS))
    child.call(1, 'echo', { text: 'ok' })
    await child.response(1)
    expect(child.refusals()).toHaveLength(REFUSALS)
    child.proc.stdin.end()
    expect(await child.exited).toBe(0)
    expect(child.onerrors()).toEqual([
      expect.objectContaining({ code: 'ERR_JSON_SYNTAX', jsonRpcCode: -32700 }),
      expect.objectContaining({ code: 'ERR_JSON_SYNTAX', repeated: REFUSALS - 1 }),
    ])
    expect(child.onerrors()[0]?.repeated).toBeUndefined()
  })

  it('reports every refused line with refusalWindowMs 0 (the control)', async () => {
    const child = await start(['bounded', '--log-errors', '--refusal-window-ms=0'])
    // A loaded machine reads the child's stderr late: it is left unread until the input has
    // ended, so a child that exited before stderr took its lines would lose most of them
    // (about 400 of 5,000 arrived when the fixture exited once stdout alone had drained).
    child.proc.stderr.pause()
    child.write('x\n'.repeat(REFUSALS))
    child.call(1, 'echo', { text: 'ok' })
    await child.response(1)
    child.proc.stdin.end()
    child.proc.stderr.resume()
    expect(await child.exited).toBe(0)
    const lines = child.onerrors()
    expect(lines).toHaveLength(REFUSALS)
    expect(
      lines.filter((e) => e.code === 'ERR_JSON_SYNTAX' && e.repeated === undefined),
    ).toHaveLength(REFUSALS)
  })
})
