// Helper test: the decode of src/body-scanner.ts (Latin-1 for all-ASCII bytes) against the
// UTF-8 decode it replaces, and through admitBody on either side of the one-byte check.
import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { decodeText } from '../src/body-scanner.js'
import { bodyAdmission } from '../src/index.js'
import { admitStream } from './helpers/admit-stream.js'

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes
}

describe('decodeText', () => {
  test.prop([fc.uint8Array({ maxLength: 512 })], { numRuns: 500 })(
    "gives exactly bytes.toString('utf8') for any bytes",
    (bytes) => {
      const buffer = Buffer.from(bytes)
      expect(decodeText(buffer)).toBe(buffer.toString('utf8'))
    },
  )

  test.prop(
    [fc.string({ unit: fc.constantFrom('a', '\u007f', '\u0080', 'é', '漢', '😀', '\u0000') })],
    {
      numRuns: 300,
    },
  )(
    "gives exactly bytes.toString('utf8') for ASCII text and text one character past it",
    (text) => {
      const buffer = Buffer.from(text)
      expect(decodeText(buffer)).toBe(text)
    },
  )

  it('decodes a large ASCII body (an external one-byte string) and a large non-ASCII one the same as UTF-8', () => {
    for (const unit of ['abcdefg~', 'abcdefgé']) {
      const buffer = Buffer.from(unit.repeat(256 * 1024))
      expect(decodeText(buffer)).toBe(buffer.toString('utf8'))
    }
  })

  it('admits the same value whether the body is all ASCII or has one byte past it', async () => {
    const options = bodyAdmission({})
    const ascii = await admitStream(once(Buffer.from('{"k":"caf\\u00e9"}')), options)
    const utf8 = await admitStream(once(Buffer.from('{"k":"café"}')), options)
    expect(ascii).toMatchObject({ ok: true, value: { k: 'café' } })
    expect(utf8).toMatchObject({ ok: true, value: { k: 'café' } })
  })
})
