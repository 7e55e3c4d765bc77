import { describe, expect, it } from 'vitest'
import { memoryLimitStore } from '../src/index.js'
import { limitStoreContract } from './helpers/limit-contract.js'

limitStoreContract('memoryLimitStore', () => memoryLimitStore())

describe('memoryLimitStore', () => {
  it('never admits more than the limit across many concurrent acquires for one key', async () => {
    const store = memoryLimitStore()
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store.acquire({ name: 'n', key: 'k', id: `l${i}`, limit: 7, leaseMs: 60_000 }),
      ),
    )
    expect(answers.filter((a) => a.ok)).toHaveLength(7)
  })
})
