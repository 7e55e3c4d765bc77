// The framing core's edge cases the property test (line-reader.property.test.ts) seldom draws:
// a line holding only `\r` (CRLF's empty line), split across chunks too, and the reader after
// a line passed the cap. In-process; the transport around it runs in child processes in
// stdio.test.ts.
import { describe, expect, it } from 'vitest'
import { BoundedLineReader, type LineEvent } from '../src/line-reader.js'
import { resolveBoundedStdioOptions } from '../src/stdio-options.js'

function read(chunks: string[], maxLineBytes = 64) {
  const reader = new BoundedLineReader(resolveBoundedStdioOptions({ maxLineBytes }))
  const events: LineEvent[] = []
  const accepted = chunks.map((c) => reader.push(Buffer.from(c), (e) => events.push(e)))
  return { reader, events, accepted }
}

describe('BoundedLineReader edges', () => {
  it('skips an empty CRLF line, whole or split between its \\r and \\n', () => {
    expect(read(['\r\n1\n']).events).toEqual([{ kind: 'value', value: 1 }])
    expect(read(['\r', '\n2\n']).events).toEqual([{ kind: 'value', value: 2 }])
    expect(read(['3\r', '\n']).events).toEqual([{ kind: 'value', value: 3 }])
    // Two carriage returns are not an empty line: refused as not JSON.
    expect(read(['\r\r\n']).events.map((e) => e.kind)).toEqual(['refused'])
  })

  it('takes nothing more once a line passed the cap, however much follows', () => {
    const { reader, events, accepted } = read(['1\n', 'x'.repeat(10), '2\n', '3\n'], 8)
    expect(accepted).toEqual([true, false, false, false])
    expect(reader.overflowed).toBe(true)
    expect(events.map((e) => e.kind)).toEqual(['value', 'overflow'])
  })
})
