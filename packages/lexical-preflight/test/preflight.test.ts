import { isAdmissionError, JSON_BUDGET_CODES, JSON_LIMITS_DEFAULTS } from '@tollgate/json-budget'
import { refusal } from '@tollgate/test-kit/refusal'
import { describe, expect, it } from 'vitest'
import {
  createPreflight,
  PREFLIGHT_DEFAULTS,
  preflight,
  resolvePreflightOptions,
} from '../src/index.js'
import { byteCuts, run, utf8, verdict } from './helpers/preflight-runs.js'

/** Every two-chunk split of `bytes` and the byte-by-byte run, with the same outcome as one shot. */
function everySplit(bytes: Uint8Array, limits = {}, policies = {}) {
  const whole = verdict(bytes, [], limits, policies)
  for (let cut = 0; cut <= bytes.length; cut++) {
    expect(verdict(bytes, [cut], limits, policies)).toEqual(whole)
  }
  expect(verdict(bytes, byteCuts(bytes.length), limits, policies)).toEqual(whole)
  return whole
}

describe('preflight', () => {
  it('counts {"a":[1,2]} as 5 nodes at depth 2 over 11 bytes', () => {
    expect(preflight(utf8('{"a":[1,2]}'))).toEqual({ nodes: 5, depth: 2, bytes: 11 })
  })

  it('counts a top-level scalar as one node at depth 0', () => {
    expect(preflight(utf8(' -1.5e+3 '))).toEqual({ nodes: 1, depth: 0, bytes: 9 })
    expect(preflight(utf8('"x"'))).toEqual({ nodes: 1, depth: 0, bytes: 3 })
    expect(preflight(utf8('null'))).toEqual({ nodes: 1, depth: 0, bytes: 4 })
  })

  it('reports the deepest nesting, not the final one', () => {
    expect(preflight(utf8('[[[]],[]]'))).toEqual({ nodes: 4, depth: 3, bytes: 9 })
  })

  it('refuses each grammar error with ERR_JSON_SYNTAX at its byte offset', () => {
    const cases: [string, number][] = [
      ['[1,]', 3],
      ['{"a":1,}', 7],
      ['01', 1],
      ['1.', 2],
      ['1.e5', 2],
      ['-', 1],
      ['+1', 0],
      ['"\\x"', 2],
      ['"\\u12G4"', 5],
      ['[1 2]', 3],
      ['{"a" 1}', 5],
      ['{1:1}', 1],
      ['[}', 1],
      ['{]', 1],
      ['tru', 3],
      ['trUe', 2],
      ['1 2', 2],
      ['"a\tb"', 2],
      ['\f1', 0],
      ['[1]]', 3],
      ['', 0],
      ['   ', 3],
    ]
    for (const [text, offset] of cases) {
      const error = refusal(() => preflight(utf8(text)))
      expect([text, error.code, error.offset]).toEqual([text, 'ERR_JSON_SYNTAX', offset])
      expect(error.status).toBe(422)
    }
  })

  it('admits whitespace of exactly space, tab, LF and CR around every token', () => {
    expect(preflight(utf8(' \t\r\n{ \t\r\n"a" \t\r\n: \t\r\n[ 1 , 2 ] \t\r\n} \t\r\n')).nodes).toBe(
      5,
    )
  })

  it('admits maxNodes nodes and refuses one more with ERR_JSON_TOO_MANY_NODES at its offset', () => {
    const doc = utf8('{"a":[1,2]}')
    expect(everySplit(doc, { maxNodes: 5 })).toMatchObject({ ok: true, nodes: 5 })
    expect(everySplit(doc, { maxNodes: 4 })).toEqual({
      ok: false,
      code: 'ERR_JSON_TOO_MANY_NODES',
      offset: 8,
      limit: 4,
    })
  })

  it('admits maxDepth nesting and refuses one more with ERR_JSON_TOO_DEEP at its offset', () => {
    const doc = utf8('[{"a":[[]]}]')
    expect(everySplit(doc, { maxDepth: 4 })).toMatchObject({ ok: true, depth: 4 })
    expect(everySplit(doc, { maxDepth: 3 })).toEqual({
      ok: false,
      code: 'ERR_JSON_TOO_DEEP',
      offset: 7,
      limit: 3,
    })
  })

  it('admits a top-level scalar under maxDepth 0 and refuses any container', () => {
    expect(preflight(utf8('1'), { maxDepth: 0 }).depth).toBe(0)
    expect(refusal(() => preflight(utf8('[]'), { maxDepth: 0 })).code).toBe('ERR_JSON_TOO_DEEP')
  })

  it('admits maxBytes input bytes and refuses one more with ERR_JSON_TOO_LARGE at offset maxBytes', () => {
    const doc = utf8('[1, 2, 3]')
    expect(everySplit(doc, { maxBytes: 9 })).toMatchObject({ ok: true, bytes: 9 })
    const over = everySplit(doc, { maxBytes: 8 })
    expect(over).toEqual({ ok: false, code: 'ERR_JSON_TOO_LARGE', offset: 8, limit: 8 })
    expect(JSON_BUDGET_CODES.ERR_JSON_TOO_LARGE.status).toBe(413)
  })

  it('refuses a grammar error inside the admitted bytes before the byte limit', () => {
    expect(verdict(utf8('[1,]     '), [], { maxBytes: 5 })).toMatchObject({
      code: 'ERR_JSON_SYNTAX',
      offset: 3,
    })
  })

  it('uses the default limits of json-budget', () => {
    const deep = utf8(`${'['.repeat(65)}${']'.repeat(65)}`)
    const error = refusal(() => preflight(deep))
    expect([error.code, error.limit, error.offset]).toEqual([
      'ERR_JSON_TOO_DEEP',
      JSON_LIMITS_DEFAULTS.maxDepth,
      64,
    ])
    const many = utf8(`[${'0,'.repeat(JSON_LIMITS_DEFAULTS.maxNodes - 2)}0]`)
    expect(preflight(many).nodes).toBe(JSON_LIMITS_DEFAULTS.maxNodes)
    const tooMany = utf8(`[${'0,'.repeat(JSON_LIMITS_DEFAULTS.maxNodes - 1)}0]`)
    expect(refusal(() => preflight(tooMany)).limit).toBe(JSON_LIMITS_DEFAULTS.maxNodes)
  })

  it('admits a top-level number that ends the input, in every number state', () => {
    for (const text of ['0', '7', '-0', '12', '1.5', '1e5', '1E+5', '-0.25e-3']) {
      expect([text, verdict(utf8(text))]).toEqual([
        text,
        { ok: true, nodes: 1, depth: 0, bytes: text.length },
      ])
    }
  })

  it('refuses a comma where an object expects its first key', () => {
    expect(verdict(utf8('{,"a":1}'))).toMatchObject({
      ok: false,
      code: 'ERR_JSON_SYNTAX',
      offset: 1,
    })
  })

  it('refuses a truncated text at end() with the input length as offset', () => {
    for (const text of ['[1', '{"a":', '"abc', 'nul', '-', '[1.', '{"a"', '[1,']) {
      const r = run(utf8(text))
      // `at` 1: the one push passed and end() refused.
      expect([text, r.ok, r.at]).toEqual([text, false, 1])
      expect(r).toMatchObject({ code: 'ERR_JSON_SYNTAX', offset: text.length })
    }
  })
})

describe('createPreflight', () => {
  it('refuses during push, not at end, once the depth limit is passed', () => {
    const scanner = createPreflight({ maxDepth: 3 })
    scanner.push(utf8('[[['))
    expect(refusal(() => scanner.push(utf8('[1'))).code).toBe('ERR_JSON_TOO_DEEP')
  })

  it('refuses during push, not at end, once the node limit is passed', () => {
    const scanner = createPreflight({ maxNodes: 10 })
    scanner.push(utf8('[1,2,3,4,5,'))
    expect(refusal(() => scanner.push(utf8('6,7,8,9,10,11'))).offset).toBe(19)
  })

  it('refuses during push, not at end, once the byte limit is passed', () => {
    const scanner = createPreflight({ maxBytes: 10 })
    scanner.push(utf8('["aaaa'))
    const error = refusal(() => scanner.push(utf8('aaaaaaaa')))
    expect([error.code, error.offset, error.limit]).toEqual(['ERR_JSON_TOO_LARGE', 10, 10])
  })

  it('keeps a failed scanner failed: push and end rethrow the first refusal', () => {
    const scanner = createPreflight()
    const first = refusal(() => scanner.push(utf8('[1,]')))
    expect(refusal(() => scanner.push(utf8('1'))).offset).toBe(first.offset)
    expect(refusal(() => scanner.end())).toBe(first)
  })

  it('returns the same counts from a second end() and refuses push after end', () => {
    const scanner = createPreflight()
    scanner.push(utf8('[]'))
    expect(scanner.end()).toEqual({ nodes: 1, depth: 1, bytes: 2 })
    expect(scanner.end()).toEqual({ nodes: 1, depth: 1, bytes: 2 })
    expect(() => scanner.push(utf8('1'))).toThrow(Error)
    // Even bytes the grammar would admit: the scanner is closed, not a refusal of the input.
    let thrown: unknown
    try {
      scanner.push(utf8(' '))
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(Error)
    expect(isAdmissionError(thrown)).toBe(false)
  })

  it('accepts empty chunks anywhere', () => {
    const scanner = createPreflight()
    for (const part of ['', '{', '', '"a"', '', ':1}', '']) scanner.push(utf8(part))
    expect(scanner.end()).toEqual({ nodes: 3, depth: 1, bytes: 7 })
  })

  it('scans chunks that are views into larger buffers at odd offsets', () => {
    const backing = Buffer.from(`xyz${JSON.stringify({ k: 'v'.repeat(200), n: [1, 2] })}xyz`)
    const view = backing.subarray(3, backing.length - 3)
    expect(preflight(view)).toEqual(preflight(Buffer.from(view)))
    expect(preflight(new Uint8Array(view.buffer, view.byteOffset + 0, view.length)).nodes).toBe(7)
  })

  it('refuses a chunk that is not a Uint8Array with a TypeError', () => {
    expect(() => createPreflight().push('[]' as unknown as Uint8Array)).toThrow(TypeError)
  })

  it('takes options resolved once by resolvePreflightOptions', () => {
    const options = resolvePreflightOptions({ maxDepth: 1 })
    expect(refusal(() => preflight(utf8('[[]]'), options)).limit).toBe(1)
    const scanner = createPreflight(options)
    scanner.push(utf8('[]'))
    expect(scanner.end().depth).toBe(1)
  })

  it('never puts input bytes in a refusal', () => {
    const marker = 'SECRET_MARKER_7f3a'
    const inputs = [
      `{"${marker}":[1,]}`,
      `["${marker}\u0001"]`,
      `{"${marker}":1,"${marker}":2}`,
      `[${'['.repeat(70)}"${marker}"`,
    ]
    for (const text of inputs) {
      const error = refusal(() =>
        preflight(utf8(text), { duplicateKeys: 'refuse', protoKeys: 'refuse' }),
      )
      expect(error.message).not.toContain(marker)
      expect(JSON.stringify(error.toJSON())).not.toContain(marker)
      expect(String(error.stack)).not.toContain(marker)
    }
  })
})

describe('createPreflight nesting past 32 levels', () => {
  // Levels 0-31 keep their container bit in one integer, deeper ones in a growing array; a
  // wrong bit would close an object with `]` or an array with `}`.
  const mixed = (n: number) => {
    let open = ''
    let close = ''
    for (let d = 0; d < n; d++) {
      const obj = (d * 7) % 3 === 0
      open += obj ? '{"k":' : '['
      close = (obj ? '}' : ']') + close
    }
    return `${open}0${close}`
  }

  it('closes each of 200 mixed levels with its own bracket, in one chunk and byte by byte', () => {
    const doc = utf8(mixed(200))
    const whole = verdict(doc)
    expect(whole).toMatchObject({ ok: true, depth: 200 })
    expect(verdict(doc, byteCuts(doc.length))).toEqual(whole)
    expect(whole).toMatchObject({ nodes: preflight(doc, { maxDepth: 200 }).nodes })
  })

  it('refuses the wrong closing bracket at every level past 32 at its offset', () => {
    for (const n of [33, 40, 64, 65, 97, 130, 200]) {
      const text = mixed(n)
      const at = text.indexOf('0') + 1 + (n - 33)
      const right = text[at] as string
      const wrong = right === '}' ? ']' : '}'
      const bad = utf8(text.slice(0, at) + wrong + text.slice(at + 1))
      expect([n, verdict(bad)]).toEqual([
        n,
        { ok: false, code: 'ERR_JSON_SYNTAX', offset: at, limit: undefined },
      ])
    }
  })

  it('returns to the object at level 32 after closing level 33', () => {
    const text = `${'['.repeat(31)}{"a":[0],"b":1}${']'.repeat(31)}`
    expect(verdict(utf8(text))).toMatchObject({ ok: true, depth: 33 })
  })

  it('clears a deep level an earlier sibling used for an object when an array takes it', () => {
    const deep = (inner: string) => `${'['.repeat(40)}${inner}${']'.repeat(40)}`
    const ok = utf8(`[${deep('{"a":1}')},${deep('[1]')},${deep('{"a":1}')}]`)
    expect(verdict(ok)).toMatchObject({ ok: true, depth: 42 })
    const text = `[${deep('{"a":1}')},${deep('[1}')}]`
    expect(verdict(utf8(text))).toEqual({
      ok: false,
      code: 'ERR_JSON_SYNTAX',
      offset: text.lastIndexOf('1}') + 1,
      limit: undefined,
    })
  })
})

describe('preflight refusals', () => {
  it('reports observed as the input length for ERR_JSON_TOO_LARGE and the depth reached for ERR_JSON_TOO_DEEP', () => {
    const scanner = createPreflight({ maxBytes: 10 })
    scanner.push(utf8('["aaaa'))
    expect(refusal(() => scanner.push(utf8('aaaaaaaa')))).toMatchObject({
      code: 'ERR_JSON_TOO_LARGE',
      observed: 14,
    })
    expect(refusal(() => preflight(utf8('[[[]]]'), { maxDepth: 2 }))).toMatchObject({
      code: 'ERR_JSON_TOO_DEEP',
      limit: 2,
      observed: 3,
    })
  })

  it('counts the node limit on keys, string values and containers at N and N + 1, split anywhere', () => {
    // The last admitted node is a key, then a string, then a container.
    const keyLast = utf8('{"a":1,"b":2}')
    expect(everySplit(keyLast, { maxNodes: 5 })).toMatchObject({ ok: true, nodes: 5 })
    expect(everySplit(keyLast, { maxNodes: 4 })).toMatchObject({
      code: 'ERR_JSON_TOO_MANY_NODES',
      offset: 11,
    })
    expect(everySplit(keyLast, { maxNodes: 3 })).toMatchObject({
      code: 'ERR_JSON_TOO_MANY_NODES',
      offset: 7,
    })
    const strings = utf8('[1,"a","b"]')
    expect(everySplit(strings, { maxNodes: 3 })).toMatchObject({
      code: 'ERR_JSON_TOO_MANY_NODES',
      offset: 7,
    })
    const containers = utf8('[1,[],[]]')
    expect(everySplit(containers, { maxNodes: 4 })).toMatchObject({ ok: true, nodes: 4 })
    expect(everySplit(containers, { maxNodes: 3 })).toMatchObject({
      code: 'ERR_JSON_TOO_MANY_NODES',
      offset: 6,
    })
  })

  it('refuses a container past both limits as too many nodes, the node limit checked first', () => {
    expect(verdict(utf8('[[]]'), [], { maxNodes: 1, maxDepth: 1 })).toEqual({
      ok: false,
      code: 'ERR_JSON_TOO_MANY_NODES',
      offset: 1,
      limit: 1,
    })
  })
  it('restores Error.stackTraceLimit after building a refusal', () => {
    // A value of this test's own: what an earlier test left would hide a limit left at 0.
    const before = Error.stackTraceLimit
    Error.stackTraceLimit = 17
    try {
      for (const text of ['[1,]', '[', '\u00ff', '[[]]']) {
        refusal(() => preflight(utf8(text), { maxDepth: 1 }))
        expect(Error.stackTraceLimit).toBe(17)
      }
    } finally {
      Error.stackTraceLimit = before
    }
  })
})

describe('resolvePreflightOptions', () => {
  it('throws a TypeError for a bad limit or policy at construction', () => {
    const bad: object[] = [
      { maxNodes: -1 },
      { maxDepth: 1.5 },
      { maxBytes: Number.NaN },
      { maxStringBytes: -1 },
      { maxNumberLength: 0 },
      { duplicateKeys: 'yes' },
      { protoKeys: true },
      { bom: 'allow' },
      { maxNodes: null },
    ]
    for (const options of bad) {
      expect(() => resolvePreflightOptions(options)).toThrow(TypeError)
      expect(() => createPreflight(options)).toThrow(TypeError)
    }
  })

  it('refuses an unknown option by name, the nested limits and policies of earlier versions among them', () => {
    expect(() => resolvePreflightOptions({ maxStringByte: 10 } as never)).toThrow(
      'preflight: unknown option maxStringByte',
    )
    expect(() => createPreflight({ limits: { maxDepth: 1 } } as never)).toThrow(
      'preflight: unknown option limits',
    )
    expect(() => preflight(utf8('[]'), { policies: {} } as never)).toThrow(
      'preflight: unknown option policies',
    )
    expect(() => resolvePreflightOptions(null as never)).toThrow(TypeError)
  })

  it('takes limits and policies as one flat object', () => {
    const options = resolvePreflightOptions({ maxNodes: 7, bom: 'strip' })
    expect(options).toMatchObject({ maxNodes: 7, bom: 'strip' })
    const bom = Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8('[1]')])
    expect(preflight(bom, { maxNodes: 2, bom: 'strip' })).toEqual({ nodes: 2, depth: 1, bytes: 6 })
    expect(refusal(() => createPreflight({ maxNodes: 1, bom: 'strip' }).push(bom)).code).toBe(
      'ERR_JSON_TOO_MANY_NODES',
    )
  })

  it('returns frozen options with every default filled', () => {
    const options = resolvePreflightOptions()
    expect(options).toBe(PREFLIGHT_DEFAULTS)
    expect(Object.isFrozen(options)).toBe(true)
    expect(PREFLIGHT_DEFAULTS).toEqual({
      ...JSON_LIMITS_DEFAULTS,
      duplicateKeys: 'allow',
      protoKeys: 'allow',
      maxStringBytes: Number.POSITIVE_INFINITY,
      maxNumberLength: Number.POSITIVE_INFINITY,
      bom: 'refuse',
    })
    const filled = resolvePreflightOptions({ protoKeys: 'refuse' })
    expect(Object.isFrozen(filled)).toBe(true)
    expect(filled).toEqual({ ...PREFLIGHT_DEFAULTS, protoKeys: 'refuse' })
  })

  it('returns what it resolved as it is, and validates a look-alike again', () => {
    const resolved = resolvePreflightOptions({ maxDepth: 1 })
    expect(resolvePreflightOptions(resolved)).toBe(resolved)
    const lookAlike = { ...resolved, maxDepth: -1 }
    expect(() => resolvePreflightOptions(lookAlike)).toThrow(TypeError)
    // A copy of resolved options (Infinity where a cap is unset) is validated and admitted.
    const copy = resolvePreflightOptions({ ...PREFLIGHT_DEFAULTS, maxNodes: 10 })
    expect(copy).not.toBe(PREFLIGHT_DEFAULTS)
    expect(copy).toEqual({ ...PREFLIGHT_DEFAULTS, maxNodes: 10 })
    expect(() => resolvePreflightOptions({ maxNumberLength: Number.NEGATIVE_INFINITY })).toThrow(
      TypeError,
    )
  })
})
