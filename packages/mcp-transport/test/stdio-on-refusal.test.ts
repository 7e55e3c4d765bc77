// The `onRefusal` hook of the bounded stdio transport: each refused line reaches the hook once,
// with its code and limit, past the repeat window that holds back `onerror`. (The HTTP path's
// hook is tested in http-on-refusal.test.ts.)
import type { RefusalEvent } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { BoundedStdioServerTransport } from '../src/index.js'
import { linePipes } from './helpers/line-pipes.js'

describe('BoundedStdioServerTransport onRefusal', () => {
  it('reports every refused line, past the repeat window of onerror, with no status', async () => {
    const events: RefusalEvent[] = []
    const errors: Error[] = []
    const { input, output, written } = linePipes()
    const transport = new BoundedStdioServerTransport(input, output, {
      maxLineBytes: 64,
      oversizedLine: 'skip',
      onRefusal: (event) => {
        events.push(event)
      },
    })
    transport.onerror = (error) => errors.push(error)
    await transport.start()
    for (let i = 0; i < 3; i++) input.push('{"jsonrpc":"2.0","id":1,"method":"x","params":[\n')
    input.push(`${'{"jsonrpc":"2.0","id":2,"method":"x"'.padEnd(100, ' ')}}\n`)
    await new Promise<void>((resolve) => {
      const check = () => (written().length >= 4 ? resolve() : setTimeout(check, 5))
      check()
    })
    await transport.close()
    expect(events.map((e) => e.code)).toEqual([
      'ERR_JSON_SYNTAX',
      'ERR_JSON_SYNTAX',
      'ERR_JSON_SYNTAX',
      'ERR_LINE_TOO_LARGE',
    ])
    expect(events[3]).toEqual({
      code: 'ERR_LINE_TOO_LARGE',
      status: undefined,
      limit: 64,
      control: 'mcp-stdio',
    })
    // onerror is windowed: two kinds reported at once, the repeats held for the window's end.
    expect(errors.length).toBeLessThan(events.length)
  })
})
