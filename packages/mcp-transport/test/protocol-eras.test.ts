// The echo rule of a -32022 answer: which sent versions may come back as `data.requested`.
// The oracle is a list of values written out here, each with the verdict the rule states.
import { describe, expect, it } from 'vitest'
import {
  isEchoableProtocolVersion,
  MAX_ECHOED_VERSION_BYTES,
  mcpProtocolEras,
  UNRECOGNIZED_PROTOCOL_VERSION,
} from '../src/index.js'

const ECHOED = [
  '2027-01-01',
  '2025-06-18',
  'v999.0.0',
  '999',
  '1.2.3.4',
  '1.2.3-rc.1',
  'v2.0.0+build.7',
  `v1.0.0-${'a'.repeat(16)}`,
]

const REFUSED = [
  '',
  'latest',
  'v',
  '1.2.3.4.5',
  '1..2',
  '1.2.3-',
  'v1.0.0<b>x</b>',
  'v1.0.0"',
  'v1.0.0\n',
  'v1.0.0\u0000',
  '1.0.0 ',
  '１.0.0',
  `1.0.0-${'a'.repeat(17)}`,
  `${'1'.repeat(10)}.0`,
  // the shape of a token, 33 bytes long
  '123456789.123456789.123456789.1-a',
]

describe('isEchoableProtocolVersion', () => {
  it('admits dates and version tokens of at most 32 bytes, and nothing else', () => {
    for (const value of ECHOED) expect(isEchoableProtocolVersion(value), value).toBe(true)
    for (const value of REFUSED) expect(isEchoableProtocolVersion(value), value).toBe(false)
    for (const value of [undefined, null, 1, ['v1'], { v: 1 }]) {
      expect(isEchoableProtocolVersion(value)).toBe(false)
    }
  })

  it('admits a token of exactly 32 bytes and refuses one of 33', () => {
    const at = `123456789.123456789.1-${'a'.repeat(10)}`
    expect(at).toHaveLength(MAX_ECHOED_VERSION_BYTES)
    expect(isEchoableProtocolVersion(at)).toBe(true)
    expect(isEchoableProtocolVersion(`${at}a`)).toBe(false)
  })
})

describe('mcpProtocolEras().requestedOf', () => {
  it('answers the value when echoable and the fixed placeholder otherwise', () => {
    const eras = mcpProtocolEras()
    expect(eras.requestedOf('v999.0.0')).toBe('v999.0.0')
    expect(eras.requestedOf('v1.0.0<script>')).toBe(UNRECOGNIZED_PROTOCOL_VERSION)
    expect(eras.requestedOf(42)).toBe(UNRECOGNIZED_PROTOCOL_VERSION)
  })
})
