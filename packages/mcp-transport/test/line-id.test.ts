import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { LineIdScanner, MAX_RECOVERED_ID_CHARS } from '../src/line-id.js'

/** The id the scanner recovers from `line`, pushed in pieces of `step` bytes. */
function scan(line: string | Uint8Array, step = Number.POSITIVE_INFINITY): string | number | null {
  const bytes = typeof line === 'string' ? Buffer.from(line) : line
  const scanner = new LineIdScanner()
  const size = Math.min(step, bytes.length || 1)
  for (let i = 0; i < bytes.length; i += size) scanner.push(bytes.subarray(i, i + size))
  return scanner.id
}

describe('LineIdScanner', () => {
  it('finds the id of a request before, between and after its other members', () => {
    expect(scan('{"jsonrpc":"2.0","id":7,"method":"ping"')).toBe(7)
    expect(
      scan('{"method":"tools/call","params":{"id":1,"a":[{"id":2}]},"jsonrpc":"2.0","id":"r-9"}'),
    ).toBe('r-9')
    expect(scan(' \t{ "method" : "x" , "id" : -12 }')).toBe(-12)
  })

  it('reads on past bytes a parser would refuse, to an id written last', () => {
    const bad = Buffer.concat([
      Buffer.from('{"method":"tools/call","params":{"t":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","d":[[[[[[[]]]]]]]},"jsonrpc":"2.0","id":41}'),
    ])
    expect(scan(bad)).toBe(41)
  })

  it('answers null without a method, with a result or error member, or with two ids', () => {
    expect(scan('{"jsonrpc":"2.0","id":1}')).toBeNull()
    expect(scan('{"jsonrpc":"2.0","id":1,"result":{}}')).toBeNull()
    expect(scan('{"jsonrpc":"2.0","id":1,"method":"x","error":{}}')).toBeNull()
    expect(scan('{"method":"x","id":1,"id":2}')).toBeNull()
    expect(scan('[{"method":"x","id":1}]')).toBeNull()
    expect(scan('garbage "id":1')).toBeNull()
  })

  it('returns numbers only as safe integers and strings only short and plain', () => {
    const id = (v: string) => scan(`{"method":"x","id":${v}}`)
    expect(id(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER)
    expect(id(String(Number.MAX_SAFE_INTEGER + 1))).toBeNull()
    expect(id('1.5')).toBeNull()
    expect(id('1e3')).toBeNull()
    expect(id('01')).toBeNull()
    expect(id('-0')).toBeNull()
    expect(id('null')).toBeNull()
    expect(id('{"a":1}')).toBeNull()
    expect(id(`"${'a'.repeat(MAX_RECOVERED_ID_CHARS)}"`)).toBe('a'.repeat(MAX_RECOVERED_ID_CHARS))
    expect(id(`"${'a'.repeat(MAX_RECOVERED_ID_CHARS + 1)}"`)).toBeNull()
    expect(id('"a\\"b"')).toBeNull()
    expect(id('"é"')).toBeNull()
    expect(id('"a\tb"')).toBeNull()
    // An escaped key is not read as `id`.
    expect(scan('{"method":"x","\\u0069d":3}')).toBeNull()
  })

  it('needs the end of a number: a number cut off by the end of the bytes is no id', () => {
    expect(scan('{"method":"x","id":12')).toBeNull()
    expect(scan('{"method":"x","id":12,')).toBe(12)
  })

  test.prop([
    fc.oneof(fc.maxSafeInteger(), fc.string({ maxLength: 80 })),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 4 }),
    fc.boolean(),
    fc.integer({ min: 1, max: 16 }),
  ])(
    'agrees with JSON.parse on the id of every request it returns one for, however split',
    (id, params, idFirst, step) => {
      const body = idFirst
        ? { jsonrpc: '2.0', id, method: 'm', params }
        : { method: 'm', params, jsonrpc: '2.0', id }
      const line = JSON.stringify(body)
      const found = scan(line, step)
      const parsed = JSON.parse(line).id
      // JSON.stringify writes `"`, `\\` and control characters escaped, other ASCII as is.
      const plain =
        typeof parsed === 'number'
          ? !Object.is(parsed, -0)
          : parsed.length <= MAX_RECOVERED_ID_CHARS &&
            /^[\x20-\x7e]*$/.test(parsed) &&
            !/["\\]/.test(parsed)
      expect(found).toBe(plain ? parsed : null)
    },
  )
})
