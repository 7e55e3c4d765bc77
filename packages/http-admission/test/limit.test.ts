import { describe, expect, it } from 'vitest'
import { parseByteLimit } from '../src/limit.js'

describe('parseByteLimit', () => {
  it('reads numbers as bytes and sizes in powers of 1024, any case, with or without a space', () => {
    expect(parseByteLimit('limit', 1024)).toBe(1024)
    expect(parseByteLimit('limit', '100kb')).toBe(102_400)
    expect(parseByteLimit('limit', '100KB')).toBe(102_400)
    expect(parseByteLimit('limit', '1 mb')).toBe(1_048_576)
    expect(parseByteLimit('limit', '1.5mb')).toBe(1_572_864)
    expect(parseByteLimit('limit', '1.25kb')).toBe(1280)
    expect(parseByteLimit('limit', '512b')).toBe(512)
    expect(parseByteLimit('limit', '2048')).toBe(2048)
    expect(parseByteLimit('limit', ' 1gb ')).toBe(1024 ** 3)
    expect(parseByteLimit('limit', '1tb')).toBe(1024 ** 4)
    expect(parseByteLimit('limit', '1pb')).toBe(1024 ** 5)
  })

  it('rounds a fraction of a byte down', () => {
    expect(parseByteLimit('limit', '1.9b')).toBe(1)
    expect(parseByteLimit('limit', '0.5kb')).toBe(512)
  })

  it('refuses zero, negatives, fractions of a number, unknown units and non-sizes, naming the option', () => {
    for (const bad of [
      0,
      -1,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '0kb',
      '0.1b',
      '-1kb',
      '1xb',
      'kb',
      '1 0kb',
      '1e3',
      '',
      null,
      true,
      {},
    ]) {
      expect(() => parseByteLimit('limit', bad), String(bad)).toThrow(/^limit /)
    }
  })

  it('costs linear time on a long hostile string', () => {
    expect(() => parseByteLimit('limit', `${'1'.repeat(100_000)}kb`)).toThrow(TypeError)
    expect(() => parseByteLimit('limit', `1${' '.repeat(100_000)}kb`)).toThrow(TypeError)
  })
})
