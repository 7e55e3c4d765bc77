import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CONCURRENCY_LIMIT_OPTIONS, RATE_LIMIT_OPTIONS } from '../src/index.js'
import { REDIS_CONNECTION_OPTIONS, REDIS_LIMIT_STORE_OPTIONS } from '../src/redis.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

describe('README options tables', () => {
  it('holds the table each options declaration generates', () => {
    for (const table of [
      CONCURRENCY_LIMIT_OPTIONS,
      RATE_LIMIT_OPTIONS,
      REDIS_LIMIT_STORE_OPTIONS,
      REDIS_CONNECTION_OPTIONS,
    ]) {
      expect(readme).toContain(table.markdown())
    }
  })
})

describe('root entry point', () => {
  it('does not import redis: only src/redis.ts mentions it, and imports nothing from it', () => {
    const index = readFileSync(new URL('../src/index.ts', import.meta.url), 'utf8')
    expect(index).not.toMatch(/redis/)
    const redisSource = readFileSync(new URL('../src/redis.ts', import.meta.url), 'utf8')
    expect(redisSource).not.toMatch(/from 'redis'/)
  })
})
