// Back-pressure through a real child process (test/fixtures/stdio-server.mjs on the built
// package): a client that writes bad lines and never reads its answers. The fixture reports,
// every 25 ms, the bytes its stdout holds unwritten and the stdin bytes it has read.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const FIXTURE = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url))
const MiB = 1024 * 1024
const LINES = 300_000
// Generous: on a loaded machine one 64 KiB chunk of bad lines can take seconds to answer.
const DEADLINE = { timeout: 240_000 }
const children: ChildProcessWithoutNullStreams[] = []

afterEach(() => {
  for (const child of children.splice(0)) child.kill()
})

interface Report {
  readonly buffered: number
  readonly rss: number
  readonly read: number
}

/** Starts the fixture; its stdout is never read, so the pipe fills and stays full. */
function start(flags: string[]): {
  child: ChildProcessWithoutNullStreams
  reports: Report[]
  ready: Promise<void>
} {
  const child = spawn(process.execPath, [FIXTURE, 'bounded', '--report-buffer', ...flags], {
    stdio: 'pipe',
  })
  children.push(child)
  child.stdin.on('error', () => {})
  const reports: Report[] = []
  let text = ''
  const ready = new Promise<void>((resolve) => {
    child.stderr.on('data', (d: Buffer) => {
      text += d.toString()
      const lines = text.split('\n')
      text = lines.pop() ?? ''
      for (const line of lines) {
        if (line.startsWith('ready')) resolve()
        if (line.startsWith('{"report":')) reports.push(JSON.parse(line).report)
      }
    })
  })
  return { child, reports, ready }
}

/** Resolves once `done` holds for the newest report (checked as reports arrive). */
function until(
  reports: Report[],
  done: (latest: Report, all: Report[]) => boolean,
): Promise<Report> {
  return new Promise((resolve) => {
    const check = () => {
      const latest = reports.at(-1)
      if (latest !== undefined && done(latest, reports)) return resolve(latest)
      setTimeout(check, 25)
    }
    check()
  })
}

/** True when the last `n` reports read no new byte: the child has stopped reading. */
function stalled(all: Report[], n = 40): boolean {
  if (all.length < n) return false
  const tail = all.slice(-n)
  return tail.every((r) => r.read === tail[0]?.read)
}

describe('BoundedStdioServerTransport back-pressure', () => {
  it(
    `stops reading while stdout is not drained: ${LINES.toLocaleString('en-US')} bad lines leave a few MiB buffered`,
    DEADLINE,
    async () => {
      const { child, reports, ready } = start([])
      await ready
      const input = Buffer.from('x\n'.repeat(LINES))
      child.stdin.write(input)
      const latest = await until(reports, (_r, all) => stalled(all))
      // Most of the input was never read: it waits in the pipe and in this process.
      expect(latest.read).toBeLessThan(input.length / 2)
      expect(child.stdin.writableLength).toBeGreaterThan(0)
      // The bytes stdout holds, exactly (resident memory also counts garbage not yet collected,
      // so it is not what is asserted): about one input chunk's answers.
      expect(latest.buffered).toBeLessThan(8 * MiB)
    },
  )

  it(
    'buffers an answer for every line when the pause is removed (the control)',
    DEADLINE,
    async () => {
      const { child, reports, ready } = start(['--ignore-pause'])
      await ready
      const input = Buffer.from('x\n'.repeat(LINES))
      child.stdin.write(input)
      // One answer of about a hundred bytes per two-byte line, all held by stdout: past the
      // bound above, and growing while lines arrive (not all need be read to show it).
      const latest = await until(reports, (r) => r.buffered > 12 * MiB || r.read === input.length)
      expect(latest.buffered).toBeGreaterThan(8 * MiB)
    },
  )
})
