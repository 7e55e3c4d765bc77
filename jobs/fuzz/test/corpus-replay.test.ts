import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readCorpus } from '../src/corpus.js'
import { TARGETS } from '../src/targets/index.js'

// Every input the fuzzer ever minimized, and the hand-written seeds, replayed on every run of
// the suite: a disagreement that was fixed cannot come back unnoticed. An empty corpus passes.
for (const target of TARGETS) {
  describe(`corpus/${target.name}`, () => {
    let unavailable: string | undefined
    beforeAll(async () => {
      unavailable = await target.unavailable()
      if (unavailable === undefined) await target.setup?.()
    })
    afterAll(async () => {
      if (unavailable === undefined) await target.teardown?.()
    })

    it('replays every stored input without a disagreement', async () => {
      expect(unavailable, `${target.name} cannot run`).toBeUndefined()
      const failures: string[] = []
      for (const { file, entry } of readCorpus(target.name)) {
        expect(entry.target).toBe(target.name)
        const failure = await target.check(target.decode(entry.input))
        if (failure !== undefined) failures.push(`${file} (${entry.note}): ${failure}`)
      }
      expect(failures).toEqual([])
    })
  })
}
