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

  it('reports the first refusal of a line that spans chunks, and reads the next line afresh', () => {
    const reader = new BoundedLineReader(resolveBoundedStdioOptions())
    const events: LineEvent[] = []
    // Invalid UTF-8 in the first chunk; the rest of the line, read on its own, is a syntax error.
    for (const chunk of [Buffer.from([0x7b, 0x22, 0xff]), Buffer.from(']]\n'), Buffer.from('7\n')])
      reader.push(chunk, (e) => events.push(e))
    expect(events.map((e) => (e.kind === 'value' ? e.value : `${e.kind} ${e.error.code}`))).toEqual(
      ['refused ERR_JSON_INVALID_UTF8', 7],
    )
  })

  it('applies maxStringBytes and maxNumberLength to every line', () => {
    const reader = new BoundedLineReader(
      resolveBoundedStdioOptions({ maxStringBytes: 4, maxNumberLength: 3 }),
    )
    const events: LineEvent[] = []
    reader.push(Buffer.from('"abcd"\n"abcde"\n123\n1234\n'), (e) => events.push(e))
    expect(events.map((e) => (e.kind === 'value' ? e.value : `${e.kind} ${e.error.code}`))).toEqual(
      ['abcd', 'refused ERR_JSON_STRING_TOO_LONG', 123, 'refused ERR_JSON_NUMBER_TOO_LONG'],
    )
  })
})
