import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  CONTINUATIONS_OPTIONS,
  MEMORY_STORE_OPTIONS,
  ROUTE_VIEW_OPTIONS,
  SEALED_HANDLES_OPTIONS,
} from '../src/index.js'
import { REDIS_STORE_OPTIONS } from '../src/redis.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const reference = readFileSync(new URL('../../../docs/continuation.md', import.meta.url), 'utf8')

describe('README options tables', () => {
  it('holds the table each options declaration generates, for the service, both stores and sealed handles', () => {
    for (const table of [
      CONTINUATIONS_OPTIONS,
      MEMORY_STORE_OPTIONS,
      REDIS_STORE_OPTIONS,
      SEALED_HANDLES_OPTIONS,
    ]) {
      expect(readme).toContain(table.markdown())
    }
  })

  it('has the route view table, generated from its declaration, in docs/continuation.md', () => {
    expect(reference).toContain(ROUTE_VIEW_OPTIONS.markdown())
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
