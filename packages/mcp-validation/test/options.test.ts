import { readFileSync } from 'node:fs'
import { tableUnder, unquote } from '@tollgate/test-kit/markdown-table'
import { describe, expect, it } from 'vitest'
import {
  INPUT_VALIDATION_DEFAULTS,
  resolveInputValidationOptions,
  withInputValidation,
} from '../src/index.js'
import { fixtureRegistry } from './helpers/raw-clients.js'

describe('resolveInputValidationOptions', () => {
  it('fills the defaults and freezes the result', () => {
    const resolved = resolveInputValidationOptions()
    expect(resolved).toEqual({ ...INPUT_VALIDATION_DEFAULTS })
    expect(Object.isFrozen(resolved)).toBe(true)
    expect(resolveInputValidationOptions(resolved)).toBe(resolved)
    expect(INPUT_VALIDATION_DEFAULTS).toEqual({
      maxDepth: 32,
      maxNodes: 10_000,
      maxBytes: 4_194_304,
      rewriteToolsList: true,
    })
  })

  it.each([
    [{ maxDepth: -1 }],
    [{ maxNodes: 1.5 }],
    [{ maxBytes: Number.NaN }],
    [{ maxDepth: 65 }],
    [{ maxNodes: 100_001 }],
    [{ maxBytes: 64 * 1024 * 1024 + 1 }],
    [{ rewriteToolsList: 'yes' }],
    [{ maxDeph: 3 }],
  ])('throws a TypeError at construction on %j', (options) => {
    expect(() => resolveInputValidationOptions(options as never)).toThrow(TypeError)
  })

  it('admits each limit at its ceiling', () => {
    expect(
      resolveInputValidationOptions({
        maxDepth: 64,
        maxNodes: 100_000,
        maxBytes: 64 * 1024 * 1024,
      }),
    ).toMatchObject({
      maxDepth: 64,
      maxNodes: 100_000,
      maxBytes: 64 * 1024 * 1024,
    })
  })

  it('matches the options table in the README', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const rows = tableUnder(readme, 'Options')
    const row = (name: string) => rows.find((r) => unquote(r.option ?? '') === name)?.default
    expect(row('maxDepth')).toBe(String(INPUT_VALIDATION_DEFAULTS.maxDepth))
    expect(row('maxNodes')).toBe(INPUT_VALIDATION_DEFAULTS.maxNodes.toLocaleString('en-US'))
    expect(row('maxBytes')).toBe(`${INPUT_VALIDATION_DEFAULTS.maxBytes / 1024 / 1024} MiB`)
    expect(row('rewriteToolsList')).toBe(String(resolveInputValidationOptions().rewriteToolsList))
  })
})

describe('withInputValidation', () => {
  it('throws a TypeError at construction on a bad registry or bad options', () => {
    const transport = { send: async () => {}, start: async () => {}, close: async () => {} }
    expect(() => withInputValidation(transport, {} as never)).toThrow(TypeError)
    expect(() => withInputValidation(transport, fixtureRegistry(), { maxDepth: 0.5 })).toThrow(
      TypeError,
    )
  })
})
