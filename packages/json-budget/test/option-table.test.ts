import { describe, expect, it } from 'vitest'
import {
  booleanOption,
  defineOptions,
  integerOption,
  type OptionsOf,
  oneOfOption,
  option,
} from '../src/index.js'
import { messageOf } from './helpers/type-error.js'

const WIDGETS = defineOptions('widgets', {
  maxWidgets: option({ default: 8, check: integerOption(), ceiling: 100, doc: 'most widgets' }),
  mode: option<'fast' | 'safe'>({
    default: 'safe',
    check: oneOfOption(['fast', 'safe']),
    doc: 'how widgets | are made',
  }),
  strict: option({ default: true, check: booleanOption, doc: 'refuse loose widgets' }),
  names: option<readonly string[]>({
    default: Object.freeze(['a']),
    check: (value, name) => {
      if (!Array.isArray(value)) throw new TypeError(`${name} must be an array`)
    },
    normalize: (value) => Object.freeze(value.map((v) => v.toUpperCase())),
    doc: 'widget names',
  }),
})

describe('defineOptions', () => {
  it('derives frozen defaults from the rows', () => {
    expect(WIDGETS.defaults).toEqual({ maxWidgets: 8, mode: 'safe', strict: true, names: ['a'] })
    expect(Object.isFrozen(WIDGETS.defaults)).toBe(true)
    expect(WIDGETS.names).toEqual(['maxWidgets', 'mode', 'strict', 'names'])
  })

  it('fills, normalizes and freezes what resolve is given', () => {
    const input: OptionsOf<typeof WIDGETS.rows> = { maxWidgets: 3, names: ['x', 'y'] }
    const resolved = WIDGETS.resolve(input)
    expect(resolved).toEqual({ maxWidgets: 3, mode: 'safe', strict: true, names: ['X', 'Y'] })
    expect(Object.isFrozen(resolved)).toBe(true)
    expect(WIDGETS.resolve(resolved)).toBe(resolved)
  })

  it('resolves no options, and options that set nothing, to the defaults object itself', () => {
    expect(WIDGETS.resolve(undefined)).toBe(WIDGETS.defaults)
    expect(WIDGETS.resolve({})).toBe(WIDGETS.defaults)
    expect(WIDGETS.resolve({ mode: undefined })).toBe(WIDGETS.defaults)
  })

  it('refuses an unknown option, a bad value and a value above the ceiling, naming the option', () => {
    expect(messageOf(() => WIDGETS.resolve({ colour: 1 }))).toBe('widgets: unknown option colour')
    expect(messageOf(() => WIDGETS.resolve({ [`x${'y'.repeat(100)}`]: 1 }))).toHaveLength(
      'widgets: unknown option '.length + 64,
    )
    expect(messageOf(() => WIDGETS.resolve({ maxWidgets: 0 }))).toBe(
      'maxWidgets must be a positive safe integer, got 0',
    )
    expect(messageOf(() => WIDGETS.resolve({ maxWidgets: 101 }))).toBe(
      'maxWidgets may not exceed 100, got 101',
    )
    expect(WIDGETS.resolve({ maxWidgets: 100 }).maxWidgets).toBe(100)
    expect(messageOf(() => WIDGETS.resolve({ mode: 'slow' }))).toMatch(/^mode must be one of/)
    expect(messageOf(() => WIDGETS.resolve({ strict: null }))).toBe('strict must be a boolean')
    for (const bad of [null, 1, 'x', []]) {
      expect(messageOf(() => WIDGETS.resolve(bad))).toBe('widgets: options must be an object')
    }
  })

  it('reads only its own options with pick', () => {
    expect(WIDGETS.pick({ maxWidgets: 2, profile: 'rest' }).maxWidgets).toBe(2)
    expect(WIDGETS.pick({ profile: 'rest' })).toBe(WIDGETS.defaults)
    expect(() => WIDGETS.pick({ maxWidgets: -1, profile: 'rest' })).toThrow(/maxWidgets/)
    for (const bad of [null, 1, 'x']) {
      expect(messageOf(() => WIDGETS.pick(bad))).toBe('widgets: options must be an object')
    }
  })

  it('derives a table with a changed default or ceiling, and one without some rows', () => {
    const small = WIDGETS.with('small widgets', { maxWidgets: { default: 2, ceiling: 4 } })
    expect(small.defaults.maxWidgets).toBe(2)
    expect(() => small.resolve({ maxWidgets: 5 })).toThrow('maxWidgets may not exceed 4, got 5')
    expect(WIDGETS.resolve({ maxWidgets: 5 }).maxWidgets).toBe(5)
    // The rows not changed are kept as they were.
    expect(small.names).toEqual(WIDGETS.names)
    expect(small.defaults).toEqual({ ...WIDGETS.defaults, maxWidgets: 2 })
    expect(messageOf(() => WIDGETS.with('w', { colour: { default: 1 } } as never))).toBe(
      'widgets: no option colour',
    )
    const lean = WIDGETS.without('lean widgets', 'names', 'strict')
    expect(lean.names).toEqual(['maxWidgets', 'mode'])
    expect(messageOf(() => lean.resolve({ strict: true }))).toBe(
      'lean widgets: unknown option strict',
    )
  })

  it('refuses a table whose default fails its own check', () => {
    expect(() =>
      defineOptions('broken', {
        n: option({ default: 5, check: integerOption(), ceiling: 4, doc: 'n' }),
      }),
    ).toThrow('n may not exceed 4, got 5')
  })

  it('writes a default as the README reads it: none, whole MiB, grouped digits', () => {
    const figures = defineOptions('figures', {
      unset: option<number | undefined>({ default: undefined, check: integerOption(), doc: 'a' }),
      endless: option({ default: Number.POSITIVE_INFINITY, check: () => {}, doc: 'b' }),
      cap: option({ default: 64 * 1024 * 1024, check: integerOption(), doc: 'c' }),
      odd: option({ default: 1024 * 1024 + 1, check: integerOption(), doc: 'd' }),
      small: option({ default: 100_000, check: integerOption(), doc: 'e' }),
    })
    const shown = figures
      .markdown()
      .split('\n')
      .slice(2)
      .map((line) => line.split(' | ')[1])
    expect(shown).toEqual(['none', 'none', '64 MiB', '1,048,577', '100,000'])
  })

  it('renders the README options table from the rows', () => {
    expect(WIDGETS.markdown()).toBe(
      [
        '| option | default | what it does |',
        '| --- | --- | --- |',
        '| `maxWidgets` | 8 | most widgets |',
        "| `mode` | `'safe'` | how widgets \\| are made |",
        '| `strict` | `true` | refuse loose widgets |',
        '| `names` | `["a"]` | widget names |',
      ].join('\n'),
    )
  })
})
