// Properties of the framing core (in-process; the transport around it is tested through real
// child processes in stdio.test.ts).
import { fc, test } from '@fast-check/vitest'
import { describe, expect } from 'vitest'
import { resolveBoundedStdioOptions } from '../src/index.js'
import { BoundedLineReader, type LineEvent } from '../src/line-reader.js'

type Seen = { kind: string; value?: unknown; code?: string }

function run(reader: BoundedLineReader, chunks: Uint8Array[]): Seen[] {
  const out: Seen[] = []
  const emit = (e: LineEvent) =>
    out.push(
      e.kind === 'value' ? { kind: e.kind, value: e.value } : { kind: e.kind, code: e.error.code },
    )
  for (const c of chunks) if (!reader.push(c, emit)) break
  return out
}

/** What the reader must make of `lines` under `cap`, judged by JSON.parse. */
function expected(lines: string[], cap: number): Seen[] {
  const out: Seen[] = []
  for (const line of lines) {
    if (Buffer.byteLength(line) + 1 > cap) {
      out.push({ kind: 'overflow', code: 'ERR_LINE_TOO_LARGE' })
      break
    }
    if (line === '' || line === '\r') continue
    try {
      out.push({ kind: 'value', value: JSON.parse(Buffer.from(line).toString('utf8')) })
    } catch {
      out.push({ kind: 'refused' })
    }
  }
  return out
}

const line = fc.oneof(
  fc.json(),
  fc.string().filter((s) => !s.includes('\n')),
  fc.json().map((s) => `${s}\r`),
  fc.constant(''),
)

describe('BoundedLineReader', () => {
  test.prop([
    fc.array(line, { maxLength: 12 }),
    fc.integer({ min: 2, max: 400 }),
    fc.array(fc.nat(), { maxLength: 20 }),
  ])(
    'agrees with JSON.parse line by line under the cap, however the bytes are split',
    (lines, cap, cuts) => {
      const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''))
      const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
      const chunks: Uint8Array[] = []
      let at = 0
      for (const p of [...points, bytes.length]) {
        chunks.push(bytes.subarray(at, p))
        at = p
      }
      const options = resolveBoundedStdioOptions({ maxLineBytes: cap })
      const whole = run(new BoundedLineReader(options), [bytes])
      const split = run(new BoundedLineReader(options), chunks)
      const want = expected(lines, cap)
      const strip = (s: Seen[]) => s.map((e) => (e.kind === 'refused' ? { kind: 'refused' } : e))
      expect(strip(whole)).toEqual(want)
      expect(split).toEqual(whole)
    },
  )
})
