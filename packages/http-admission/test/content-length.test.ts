// One test per Content-Length case, each asserting the code and what its message says, so a
// short body is never again reported as a malformed header.
import { expectRefused } from '@tollgate/test-kit/expect-refused'
import { refusal } from '@tollgate/test-kit/refusal'
import { describe, expect, it } from 'vitest'
import { parseContentLength } from '../src/content-length.js'
import { createInFlightBudget } from '../src/index.js'
import { admitStream } from './helpers/admit-stream.js'

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part)
}

const HEADER = /Content-Length is malformed, negative or repeated/

describe('Content-Length messages', () => {
  it('says a malformed value is malformed', () => {
    for (const value of ['12a', '1 2', '0x10', '', '+5', '12345678901234567']) {
      const error = refusal(() => parseContentLength(value))
      expect(error.code, value).toBe('ERR_BODY_INVALID_LENGTH')
      expect(error.message, value).toMatch(HEADER)
    }
  })

  it('says a negative value is refused as such', () => {
    const error = refusal(() => parseContentLength('-1'))
    expect(error.code).toBe('ERR_BODY_INVALID_LENGTH')
    expect(error.message).toMatch(HEADER)
  })

  it('says a repeated value is refused as such', () => {
    for (const value of ['5, 5', ['5', '5']]) {
      const error = refusal(() => parseContentLength(value))
      expect(error.code).toBe('ERR_BODY_INVALID_LENGTH')
      expect(error.message).toMatch(HEADER)
    }
  })

  it('says a declared length over the cap exceeds the byte limit and names the limit and the option', async () => {
    const result = await admitStream(chunks('[]'), { maxBytes: 10 }, { declaredLength: 11 })
    expectRefused(result, 'ERR_BODY_TOO_LARGE')
    expect(result.error).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', status: 413, limit: 10 })
    expect(result.error.message).toMatch(/exceeds the byte limit \(limit 10\); raise maxBytes/)
  })

  it('says a well-formed length with a body that ends short ended before it, not that the header is malformed', async () => {
    const budget = createInFlightBudget(1024)
    const result = await admitStream(chunks('{"k":', '1'), { budget }, { declaredLength: 20 })
    expectRefused(result, 'ERR_BODY_INCOMPLETE')
    expect(result.error).toMatchObject({ code: 'ERR_BODY_INCOMPLETE', status: 400, observed: 6 })
    expect(result.error.message).toMatch(/ended before its declared Content-Length/)
    expect(result.error.message).not.toMatch(/malformed/)
    expect(budget.inFlight).toBe(0)
  })
})
