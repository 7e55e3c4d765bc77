// The process-wide registry of refusal codes: the package that raises a code owns it, a second
// loaded copy of a package (the CommonJS build beside this ESM source) registers into the same
// table, and a refused table registers nothing. Each test registers codes of its own.
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import {
  AdmissionError,
  defineRefusalCodes,
  isAdmissionError,
  JSON_BUDGET_CODES,
  listRefusalCodes,
  type RefusalCodeSpec,
  refusalCodeSpec,
} from '../src/index.js'
import { typeErrorOf } from './helpers/type-error.js'

const cjs = createRequire(import.meta.url)('../dist/index.cjs') as typeof import('../src/index.js')

const SPEC: RefusalCodeSpec = {
  status: 422,
  title: 'Unprocessable Content',
  option: 'maxWidgets',
  message: 'too many widgets',
}

describe('defineRefusalCodes', () => {
  it('registers each code under its owner and returns the table frozen', () => {
    const table = defineRefusalCodes('@tollgate/registry-test-a', { ERR_TEST_WIDGETS: { ...SPEC } })
    expect(Object.isFrozen(table)).toBe(true)
    expect(Object.isFrozen(table.ERR_TEST_WIDGETS)).toBe(true)
    expect(refusalCodeSpec('ERR_TEST_WIDGETS')).toEqual({
      code: 'ERR_TEST_WIDGETS',
      owner: '@tollgate/registry-test-a',
      ...SPEC,
    })
    expect(listRefusalCodes().map((entry) => entry.code)).toContain('ERR_TEST_WIDGETS')
    const error = new AdmissionError('ERR_TEST_WIDGETS', { limit: 3 })
    expect(error).toMatchObject({ code: 'ERR_TEST_WIDGETS', status: 422, option: 'maxWidgets' })
  })

  it('refuses a malformed code without repeating it, and registers nothing of that table', () => {
    for (const bad of [
      'err_lower',
      'ERR_lower',
      'NOT_ERR_X',
      `ERR_${'A'.repeat(61)}`,
      'ERR_A-B',
      'ERR_<b>',
    ]) {
      const error = typeErrorOf(() =>
        defineRefusalCodes('@tollgate/registry-test-b', { ERR_TEST_FIRST_OK: SPEC, [bad]: SPEC }),
      )
      expect(error.message).not.toContain(bad)
    }
    expect(refusalCodeSpec('ERR_TEST_FIRST_OK')).toBeUndefined()
  })

  it('refuses a code registered by another owner, naming the owner, and keeps the first', () => {
    defineRefusalCodes('@tollgate/registry-test-c', { ERR_TEST_OWNED: SPEC })
    const error = typeErrorOf(() =>
      defineRefusalCodes('@tollgate/registry-test-d', { ERR_TEST_OWNED: SPEC }),
    )
    expect(error.message).toContain('@tollgate/registry-test-c')
    expect(refusalCodeSpec('ERR_TEST_OWNED')?.owner).toBe('@tollgate/registry-test-c')
    // json-budget's own codes cannot be taken over either.
    expect(() =>
      defineRefusalCodes('@tollgate/registry-test-d', {
        ERR_JSON_TOO_DEEP: JSON_BUDGET_CODES.ERR_JSON_TOO_DEEP,
      }),
    ).toThrow(TypeError)
  })

  it('treats the same spec registered again by the same owner as a no-op, and refuses another spec', () => {
    defineRefusalCodes('@tollgate/registry-test-e', { ERR_TEST_TWICE: { ...SPEC } })
    const before = refusalCodeSpec('ERR_TEST_TWICE')
    expect(() =>
      defineRefusalCodes('@tollgate/registry-test-e', { ERR_TEST_TWICE: { ...SPEC } }),
    ).not.toThrow()
    expect(refusalCodeSpec('ERR_TEST_TWICE')).toBe(before)
    for (const change of [
      { status: 413 },
      { title: 'x' },
      { option: undefined },
      { message: 'y' },
    ]) {
      expect(() =>
        defineRefusalCodes('@tollgate/registry-test-e', { ERR_TEST_TWICE: { ...SPEC, ...change } }),
      ).toThrow(TypeError)
    }
  })

  it('refuses a malformed owner or spec', () => {
    expect(() => defineRefusalCodes('', { ERR_TEST_SPEC: SPEC })).toThrow(TypeError)
    expect(() => defineRefusalCodes('x'.repeat(215), { ERR_TEST_SPEC: SPEC })).toThrow(TypeError)
    for (const change of [
      { status: 99 },
      { status: 600 },
      { status: 422.5 },
      { title: '' },
      { option: '' },
      { option: 3 },
      { message: '' },
    ]) {
      expect(() =>
        defineRefusalCodes('@tollgate/registry-test-f', {
          ERR_TEST_SPEC: { ...SPEC, ...change } as RefusalCodeSpec,
        }),
      ).toThrow(TypeError)
    }
    expect(refusalCodeSpec('ERR_TEST_SPEC')).toBeUndefined()
  })
})

describe('the registry across loaded copies', () => {
  it('is one table for the ESM and the CommonJS copy of the package', () => {
    expect(cjs.refusalCodeSpec('ERR_JSON_TOO_DEEP')).toBe(refusalCodeSpec('ERR_JSON_TOO_DEEP'))
    defineRefusalCodes('@tollgate/registry-test-g', { ERR_TEST_ACROSS: SPEC })
    expect(cjs.refusalCodeSpec('ERR_TEST_ACROSS')?.owner).toBe('@tollgate/registry-test-g')
    expect(() =>
      cjs.defineRefusalCodes('@tollgate/registry-test-h', { ERR_TEST_ACROSS: SPEC }),
    ).toThrow(TypeError)
  })

  it('lets isAdmissionError accept an error built by the other copy for a code this copy registered', () => {
    defineRefusalCodes('@tollgate/registry-test-i', { ERR_TEST_FOREIGN: SPEC })
    const foreign = new cjs.AdmissionError('ERR_TEST_FOREIGN', { limit: 1 })
    expect(foreign instanceof AdmissionError).toBe(false)
    expect(isAdmissionError(foreign)).toBe(true)
    expect(cjs.isAdmissionError(new AdmissionError('ERR_TEST_FOREIGN'))).toBe(true)
  })
})
