// A helper test: it reaches past the package root into `src/refusal-codes.ts` for the registry
// factory, so each test checks one rule of `defineRefusalCodes` against a table of its own. The
// process-wide table outlives a module reload (it lives on `globalThis`), so a test through it
// would see codes an earlier load registered; a fresh table per test does not. Two registries
// over one table are two loaded copies of the package. The public functions and the sharing
// with the CommonJS build are tested through the package root in `refusal-codes.test.ts`.
import { describe, expect, it } from 'vitest'
import {
  createRefusalCodeRegistry,
  defineRefusalCodes,
  listRefusalCodes,
  type RefusalCodeSpec,
  type RefusalCodeTable,
  refusalCodeSpec,
  sharedRefusalCodeTable,
} from '../src/refusal-codes.js'
import { typeErrorOf } from './helpers/type-error.js'

const OWNER = '@tollgate/registry-unit'
const SPEC: RefusalCodeSpec = {
  status: 422,
  title: 'Unprocessable Content',
  option: 'maxWidgets',
  message: 'too many widgets',
}

// A spec of any shape, for the rules a typed caller cannot break.
function loose(spec: Record<string, unknown>): RefusalCodeSpec {
  return spec as unknown as RefusalCodeSpec
}

describe('createRefusalCodeRegistry', () => {
  it('registers an entry holding exactly the code, the owner and the four spec fields, frozen and apart from the spec', () => {
    const registry = createRefusalCodeRegistry()
    const spec = { ...SPEC }
    registry.define(OWNER, { ERR_TEST_A: spec })
    const entry = registry.spec('ERR_TEST_A')
    expect(entry).toStrictEqual({ code: 'ERR_TEST_A', owner: OWNER, ...SPEC })
    expect(Object.isFrozen(entry)).toBe(true)
    expect(entry).not.toBe(spec)
    expect(registry.spec('ERR_TEST_B')).toBeUndefined()
  })

  it('returns the table it was given, frozen, with every spec in it frozen', () => {
    const registry = createRefusalCodeRegistry()
    const table = { ERR_TEST_A: { ...SPEC }, ERR_TEST_B: { ...SPEC, status: 413 } }
    const returned = registry.define(OWNER, table)
    expect(returned).toBe(table)
    expect(Object.isFrozen(table)).toBe(true)
    expect(Object.isFrozen(table.ERR_TEST_A)).toBe(true)
    expect(Object.isFrozen(table.ERR_TEST_B)).toBe(true)
  })

  it('lists entries in registration order, as a frozen array that later registrations do not change', () => {
    const registry = createRefusalCodeRegistry()
    expect(registry.list()).toEqual([])
    registry.define(OWNER, { ERR_TEST_B: SPEC, ERR_TEST_A: SPEC })
    const before = registry.list()
    registry.define('@tollgate/registry-other', { ERR_TEST_C: SPEC })
    expect(Object.isFrozen(before)).toBe(true)
    expect(before.map((e) => e.code)).toEqual(['ERR_TEST_B', 'ERR_TEST_A'])
    expect(registry.list().map((e) => [e.code, e.owner])).toEqual([
      ['ERR_TEST_B', OWNER],
      ['ERR_TEST_A', OWNER],
      ['ERR_TEST_C', '@tollgate/registry-other'],
    ])
  })

  it('keeps the table it was given: entries land in it, and a registry over it reads them', () => {
    const table: RefusalCodeTable = new Map()
    createRefusalCodeRegistry(table).define(OWNER, { ERR_TEST_A: SPEC })
    expect([...table.keys()]).toEqual(['ERR_TEST_A'])
    expect(createRefusalCodeRegistry(table).spec('ERR_TEST_A')?.owner).toBe(OWNER)
    // A registry without a table starts empty, whatever another registry holds.
    expect(createRefusalCodeRegistry().list()).toEqual([])
  })

  it('accepts an owner of 1 and of 214 characters and refuses 0, 215 and a non-string, naming the owner', () => {
    for (const owner of ['x', 'x'.repeat(214)]) {
      const registry = createRefusalCodeRegistry()
      registry.define(owner, { ERR_TEST_A: SPEC })
      expect(registry.spec('ERR_TEST_A')?.owner).toBe(owner)
    }
    for (const owner of ['', 'x'.repeat(215), 3, undefined, null]) {
      const registry = createRefusalCodeRegistry()
      const error = typeErrorOf(() => registry.define(owner as string, { ERR_TEST_A: SPEC }))
      expect(error.message).toBe(
        'defineRefusalCodes: owner must be a package name of 1–214 characters',
      )
      expect(registry.list()).toEqual([])
    }
  })

  it('refuses a table that is not an object, naming the table', () => {
    for (const table of [null, undefined, 'ERR_TEST_A', 3]) {
      const error = typeErrorOf(() =>
        createRefusalCodeRegistry().define(OWNER, table as unknown as Record<string, never>),
      )
      expect(error.message).toBe('defineRefusalCodes: table must be an object')
    }
  })

  it('accepts ERR_ followed by 1 to 60 of A-Z, 0-9 and _', () => {
    const codes = [
      'ERR_A',
      'ERR_Z',
      'ERR_0',
      'ERR_9',
      'ERR__',
      `ERR_${'Q'.repeat(60)}`,
      'ERR_AZ09_X',
    ]
    const registry = createRefusalCodeRegistry()
    registry.define(OWNER, Object.fromEntries(codes.map((code) => [code, SPEC])))
    expect(registry.list().map((e) => e.code)).toEqual(codes)
  })

  it('refuses every other code shape without repeating the code, and registers nothing of that table', () => {
    for (const bad of [
      'ERR_',
      `ERR_${'Q'.repeat(61)}`,
      'err_A',
      'ERR_a',
      'ERR_Aa',
      'XERR_A',
      'ERR_A ',
      ' ERR_A',
      'ERR_A\n',
      'ERR-A',
      'ERRA',
      'ERR_A-B',
      'ERR_<b>',
      'ERR_É',
    ]) {
      const registry = createRefusalCodeRegistry()
      const error = typeErrorOf(() => registry.define(OWNER, { ERR_TEST_OK: SPEC, [bad]: SPEC }))
      expect(error.message).toBe(
        'defineRefusalCodes: a code is not ERR_ followed by 1–60 of A-Z, 0-9, _',
      )
      expect(registry.list()).toEqual([])
    }
  })

  it('accepts a status of 100, 599 or undefined and an option of undefined', () => {
    const registry = createRefusalCodeRegistry()
    registry.define(OWNER, {
      ERR_TEST_LOW: { ...SPEC, status: 100 },
      ERR_TEST_HIGH: { ...SPEC, status: 599 },
      ERR_TEST_GONE: { ...SPEC, status: undefined, option: undefined },
    })
    expect(registry.list().map((e) => [e.status, e.option])).toEqual([
      [100, 'maxWidgets'],
      [599, 'maxWidgets'],
      [undefined, undefined],
    ])
  })

  it('refuses each malformed spec field with a message naming the code and the field', () => {
    const cases: [Record<string, unknown> | null | string, string][] = [
      [null, 'spec must be an object'],
      ['spec', 'spec must be an object'],
      [{ ...SPEC, status: 99 }, 'status must be an HTTP status (100–599) or undefined'],
      [{ ...SPEC, status: 600 }, 'status must be an HTTP status (100–599) or undefined'],
      [{ ...SPEC, status: 422.5 }, 'status must be an HTTP status (100–599) or undefined'],
      [{ ...SPEC, status: Number.NaN }, 'status must be an HTTP status (100–599) or undefined'],
      [{ ...SPEC, status: '422' }, 'status must be an HTTP status (100–599) or undefined'],
      [{ ...SPEC, status: null }, 'status must be an HTTP status (100–599) or undefined'],
      [{ ...SPEC, title: '' }, 'title must be a string'],
      [{ ...SPEC, title: 3 }, 'title must be a string'],
      [{ ...SPEC, title: undefined }, 'title must be a string'],
      [{ ...SPEC, option: '' }, 'option must be a string or undefined'],
      [{ ...SPEC, option: 3 }, 'option must be a string or undefined'],
      [{ ...SPEC, option: null }, 'option must be a string or undefined'],
      [{ ...SPEC, message: '' }, 'message must be a string'],
      [{ ...SPEC, message: 3 }, 'message must be a string'],
      [{ ...SPEC, message: undefined }, 'message must be a string'],
    ]
    for (const [spec, what] of cases) {
      const registry = createRefusalCodeRegistry()
      const error = typeErrorOf(() =>
        registry.define(OWNER, { ERR_TEST_FIRST: SPEC, ERR_TEST_SPEC: loose(spec as never) }),
      )
      expect(error.message).toBe(`defineRefusalCodes: ERR_TEST_SPEC.${what}`)
      expect(registry.list()).toEqual([])
    }
  })

  it('refuses a code another owner registered, naming that owner, keeps its entry and registers nothing of the table', () => {
    const registry = createRefusalCodeRegistry()
    registry.define(OWNER, { ERR_TEST_OWNED: SPEC })
    const first = registry.spec('ERR_TEST_OWNED')
    const error = typeErrorOf(() =>
      registry.define('@tollgate/registry-thief', { ERR_TEST_NEW: SPEC, ERR_TEST_OWNED: SPEC }),
    )
    expect(error.message).toBe(`defineRefusalCodes: ERR_TEST_OWNED is owned by ${OWNER}`)
    expect(registry.spec('ERR_TEST_OWNED')).toBe(first)
    expect(registry.spec('ERR_TEST_NEW')).toBeUndefined()
  })

  it('refuses the same owner registering a code again with any one field changed, and keeps the first entry', () => {
    for (const change of [
      { status: 413 },
      { status: undefined },
      { title: 'Payload Too Large' },
      { option: 'maxGadgets' },
      { option: undefined },
      { message: 'too many gadgets' },
    ]) {
      const registry = createRefusalCodeRegistry()
      registry.define(OWNER, { ERR_TEST_TWICE: SPEC })
      const first = registry.spec('ERR_TEST_TWICE')
      const error = typeErrorOf(() =>
        registry.define(OWNER, { ERR_TEST_NEW: SPEC, ERR_TEST_TWICE: { ...SPEC, ...change } }),
      )
      expect(error.message).toBe(
        'defineRefusalCodes: ERR_TEST_TWICE is already registered with another spec',
      )
      expect(registry.spec('ERR_TEST_TWICE')).toBe(first)
      expect(registry.spec('ERR_TEST_NEW')).toBeUndefined()
    }
  })

  it('lets a second copy (another registry over the same table) register the same table again, keeping the first entries', () => {
    const table: RefusalCodeTable = new Map()
    const first = createRefusalCodeRegistry(table)
    const second = createRefusalCodeRegistry(table)
    first.define(OWNER, { ERR_TEST_A: { ...SPEC } })
    const entry = first.spec('ERR_TEST_A')
    const again = { ERR_TEST_A: { ...SPEC }, ERR_TEST_B: { ...SPEC } }
    expect(second.define(OWNER, again)).toBe(again)
    expect(second.spec('ERR_TEST_A')).toBe(entry)
    expect(first.spec('ERR_TEST_B')?.owner).toBe(OWNER)
    expect(first.list().map((e) => e.code)).toEqual(['ERR_TEST_A', 'ERR_TEST_B'])
    // Another owner in the second copy is refused as in the first.
    expect(() => second.define('@tollgate/registry-thief', { ERR_TEST_A: SPEC })).toThrow(
      `defineRefusalCodes: ERR_TEST_A is owned by ${OWNER}`,
    )
  })
})

describe('sharedRefusalCodeTable', () => {
  it("creates one table on the host under Symbol.for('tollgate.refusalCodes'), hidden and fixed, and returns it on every call", () => {
    const host = {}
    const table = sharedRefusalCodeTable(host)
    expect(table).toBeInstanceOf(Map)
    expect(table.size).toBe(0)
    expect(sharedRefusalCodeTable(host)).toBe(table)
    const key = Symbol.for('tollgate.refusalCodes')
    expect(Object.getOwnPropertyDescriptor(host, key)).toEqual({
      value: table,
      writable: false,
      enumerable: false,
      configurable: false,
    })
    expect(sharedRefusalCodeTable({})).not.toBe(table)
  })

  it('returns a table another copy already put on the host', () => {
    const existing: RefusalCodeTable = new Map()
    const host = { [Symbol.for('tollgate.refusalCodes')]: existing }
    expect(sharedRefusalCodeTable(host)).toBe(existing)
  })

  it('is, on globalThis, the table the package functions register into and read', () => {
    const table = sharedRefusalCodeTable()
    expect(sharedRefusalCodeTable(globalThis)).toBe(table)
    const spec = { ...SPEC }
    expect(
      defineRefusalCodes('@tollgate/registry-shared', { ERR_TEST_SHARED: spec }),
    ).toStrictEqual({
      ERR_TEST_SHARED: SPEC,
    })
    const entry = table.get('ERR_TEST_SHARED')
    expect(entry).toStrictEqual({
      code: 'ERR_TEST_SHARED',
      owner: '@tollgate/registry-shared',
      ...SPEC,
    })
    expect(refusalCodeSpec('ERR_TEST_SHARED')).toBe(entry)
    const listed = listRefusalCodes()
    expect(Object.isFrozen(listed)).toBe(true)
    expect(listed).toEqual([...table.values()])
    expect(listed).toContain(entry)
  })
})
