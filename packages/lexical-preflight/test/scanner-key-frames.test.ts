import { describe, expect, it } from 'vitest'
import type { PreflightPolicies } from '../src/index.js'
import { utf8, verdict } from './helpers/preflight-runs.js'

// The key policies judge a key against the object it is in: the keys that object has had
// (duplicateKeys) and whether it is the value of a `constructor` key (protoKeys). The JS
// scanner (src/scanner.ts) and the WebAssembly one (assembly/keys.ts) keep one frame per open object
// and none for an array, so an array value, however nested, must leave the object's frame on
// top when it closes: a key after it is then judged in its own object. Each document is run
// whole and cut at every byte, with the same outcome.

const DUP: PreflightPolicies = { duplicateKeys: 'refuse' }
const PROTO: PreflightPolicies = { protoKeys: 'refuse' }

function outcome(text: string, policies: PreflightPolicies) {
  const bytes = utf8(text)
  const whole = verdict(bytes, [], undefined, policies)
  for (let cut = 0; cut <= bytes.length; cut++) {
    expect([text, cut, verdict(bytes, [cut], undefined, policies)]).toEqual([text, cut, whole])
  }
  return whole
}

describe('key policies after an array value', () => {
  it('refuses a key repeated after an array value with ERR_JSON_DUPLICATE_KEY at the repeat', () => {
    expect(outcome('{"a":[],"a":1}', DUP)).toEqual({
      ok: false,
      code: 'ERR_JSON_DUPLICATE_KEY',
      offset: 8,
      limit: undefined,
    })
    expect(outcome('{"a":[1,[2,[]]],"b":[{}],"a":1}', DUP)).toEqual({
      ok: false,
      code: 'ERR_JSON_DUPLICATE_KEY',
      offset: 25,
      limit: undefined,
    })
  })

  it('admits keys repeated only across the objects inside an array value', () => {
    expect(outcome('{"a":[{"b":1},{"b":2}],"b":3}', DUP)).toMatchObject({ ok: true, nodes: 11 })
  })

  it('refuses prototype after an array value in the value of constructor with ERR_JSON_PROTO_KEY', () => {
    expect(outcome('{"constructor":{"a":[],"prototype":{}}}', PROTO)).toEqual({
      ok: false,
      code: 'ERR_JSON_PROTO_KEY',
      offset: 23,
      limit: undefined,
    })
  })
})
