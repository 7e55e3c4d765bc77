import { readFileSync } from 'node:fs'
import { tableUnder, unquote } from '@tollgate/test-kit/markdown-table'
import { describe, expect, it } from 'vitest'
import {
  CONTINUATIONS_DEFAULTS,
  MEMORY_STORE_DEFAULTS,
  SEALED_HANDLES_DEFAULTS,
} from '../src/index.js'
import { REDIS_STORE_DEFAULTS } from '../src/redis.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

function documented(factory: string): Record<string, string> {
  const rows: Record<string, string> = {}
  for (const row of tableUnder(readme, 'Options')) {
    if (unquote(row.factory ?? '') !== factory) continue
    rows[unquote(row.option ?? '')] = (row['Default:'] ?? '').replaceAll('`', '')
  }
  return rows
}

const pick = (rows: Record<string, string>, keys: readonly string[]) =>
  Object.fromEntries(keys.map((k) => [k, /^\d+$/.test(rows[k] ?? '') ? Number(rows[k]) : rows[k]]))

describe('README options table', () => {
  it('matches CONTINUATIONS_DEFAULTS, MEMORY_STORE_DEFAULTS, REDIS_STORE_DEFAULTS and SEALED_HANDLES_DEFAULTS', () => {
    const sets = [
      ['createContinuations', CONTINUATIONS_DEFAULTS],
      ['createMemoryStore', MEMORY_STORE_DEFAULTS],
      ['createRedisStore', REDIS_STORE_DEFAULTS],
      ['sealedHandles', SEALED_HANDLES_DEFAULTS],
    ] as const
    for (const [factory, defaults] of sets) {
      expect(pick(documented(factory), Object.keys(defaults))).toEqual({ ...defaults })
    }
  })
})

describe('root entry point', () => {
  it('does not import redis: only src/redis.ts mentions it, and only as a type-free store', () => {
    const index = readFileSync(new URL('../src/index.ts', import.meta.url), 'utf8')
    expect(index).not.toMatch(/redis/)
    const redisSource = readFileSync(new URL('../src/redis.ts', import.meta.url), 'utf8')
    expect(redisSource).not.toMatch(/from 'redis'/)
  })
})
