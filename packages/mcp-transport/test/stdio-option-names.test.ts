import { describe, expect, it } from 'vitest'
import { BoundedStdioServerTransport, resolveBoundedStdioOptions } from '../src/index.js'
import { linePipes } from './helpers/line-pipes.js'

// `maxBufferSize` is the SDK's name for the line cap, taken so the SDK transport's options pass
// unchanged. Set alone it is the cap, so a bad value must be refused at construction as
// `maxLineBytes`' are, naming the option the caller wrote; never a cap of 0 or below.
describe('BoundedStdioServerTransport', () => {
  it.each<[unknown, string]>([
    [0, '0'],
    [-1, '-1'],
    [1.5, '1.5'],
    ['1024', 'string'],
    [null, 'object'],
  ])('refuses maxBufferSize %j at construction, naming maxBufferSize', (maxBufferSize, got) => {
    const expected = new TypeError(`maxBufferSize must be a positive safe integer, got ${got}`)
    expect(() => resolveBoundedStdioOptions({ maxBufferSize } as never)).toThrow(expected)
    const { input, output } = linePipes()
    expect(
      () => new BoundedStdioServerTransport(input, output, { maxBufferSize } as never),
    ).toThrow(expected)
  })
})
