import { fc, test } from '@fast-check/vitest'
import { strictJsonParse } from '@tollgate/test-kit/strict-json'
import { describe, expect } from 'vitest'
import { bodyAdmission } from '../src/index.js'
import { admitStream } from './helpers/admit-stream.js'

// Any JSON text, a top-level scalar included: strict (an object or array only) is off here, and
// so are the key policies (a generated `__proto__` or repeated key is refused by default; this
// property is about decoding, the key refusals have their own tests).
const options = bodyAdmission({ strict: false, duplicateKeys: 'allow', protoKeys: 'allow' })

async function* split(bytes: Buffer, cuts: number[]): AsyncGenerator<Uint8Array> {
  let at = 0
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    yield bytes.subarray(at, cut)
    at = cut
  }
  yield bytes.subarray(at)
}

describe('bodyAdmission().admit', () => {
  test.prop([fc.jsonValue({ maxDepth: 6 }), fc.array(fc.nat(), { maxLength: 8 })], {
    numRuns: 200,
  })('decodes any JSON text split anywhere to what JSON.parse gives', async (value, cuts) => {
    const text = JSON.stringify(value)
    const result = await admitStream(split(Buffer.from(text), cuts), options)
    expect(result.ok).toBe(true)
    if (result.ok) expect(result.value).toStrictEqual(JSON.parse(text))
  })

  test.prop([fc.uint8Array({ maxLength: 64 }), fc.array(fc.nat(), { maxLength: 4 })], {
    numRuns: 300,
  })(
    'admits arbitrary bytes exactly when a strict UTF-8 decode and JSON.parse accept them',
    async (bytes, cuts) => {
      const expected = strictJsonParse(bytes)
      const result = await admitStream(split(Buffer.from(bytes), cuts), options)
      if (bytes.length === 0) return // an empty body admits as undefined
      expect(result.ok).toBe(expected.ok)
      if (result.ok && expected.ok) expect(result.value).toStrictEqual(expected.value)
    },
  )
})
