import fc from 'fast-check'
import { writeCorpus } from './corpus.js'
import type { FuzzTarget } from './target.js'

/** What one time-boxed run found. */
export interface RunSummary {
  readonly seed: number
  readonly inputs: Record<string, number>
  readonly skipped: Record<string, string>
  readonly failures: { target: string; batchSeed: number; failure: string; file?: string }[]
}

export interface RunOptions {
  readonly seconds: number
  readonly seed: number
  readonly targets: readonly FuzzTarget<unknown>[]
  /** Inputs per batch; each batch has its own seed, `seed + batch index`. */
  readonly batchRuns?: number
  /** Stop after this many batches even if time is left (for the test suite). */
  readonly maxBatches?: number
  /** Write minimized failures to the corpus. Default: true. */
  readonly save?: boolean
  readonly log?: (line: string) => void
}

/**
 * Runs the targets round-robin in seeded batches until the time box ends. A failing input is
 * shrunk by fast-check, then delta-debugged by the target, then saved to the corpus; the
 * target is not run again in this run (its first failure is the one to fix).
 */
export async function runFuzz(options: RunOptions): Promise<RunSummary> {
  const log = options.log ?? (() => {})
  const batchRuns = options.batchRuns ?? 100
  const deadline = Date.now() + options.seconds * 1_000
  const inputs: Record<string, number> = {}
  const skipped: Record<string, string> = {}
  const failures: RunSummary['failures'] = []
  const live: FuzzTarget<unknown>[] = []
  for (const target of options.targets) {
    const reason = await target
      .unavailable()
      .catch((error: unknown) => `cannot load: ${String(error)}`)
    if (reason !== undefined) {
      skipped[target.name] = reason
      log(`skip ${target.name}: ${reason}`)
      continue
    }
    await target.setup?.()
    live.push(target)
    inputs[target.name] = 0
  }
  try {
    let batch = 0
    const maxBatches = options.maxBatches ?? Number.POSITIVE_INFINITY
    while (Date.now() < deadline && live.length > 0 && batch < maxBatches) {
      const target = live[batch % live.length]!
      const batchSeed = (options.seed + batch) | 0
      batch++
      const remaining = deadline - Date.now()
      const details = await fc.check(
        fc.asyncProperty(
          target.arbitrary,
          async (input) => (await target.check(input)) === undefined,
        ),
        {
          seed: batchSeed,
          numRuns: batchRuns,
          interruptAfterTimeLimit: Math.max(remaining, 1),
          markInterruptAsFailure: false,
          endOnFailure: !target.shrink,
        },
      )
      inputs[target.name] = (inputs[target.name] ?? 0) + details.numRuns
      if (!details.failed || details.counterexample === null) continue
      const shrunk = details.counterexample[0]
      const fails = async (candidate: unknown) => (await target.check(candidate)) !== undefined
      const minimal = await target.minimize(shrunk, fails)
      // A failure that does not reproduce three times in a row is timing-dependent: say so.
      let reproduced = 0
      let failure: string | undefined
      for (let i = 0; i < 3; i++) {
        const again = await target.check(minimal)
        if (again !== undefined) {
          reproduced++
          failure ??= again
        }
      }
      failure ??= 'failure did not reproduce after minimizing'
      const entry = {
        target: target.name,
        note: `found by pnpm fuzz; minimized; reproduced ${reproduced}/3 on re-run`,
        found: { seed: batchSeed, date: new Date().toISOString(), failure },
        input: target.encode(minimal),
      }
      const file = options.save === false ? undefined : writeCorpus(entry)
      failures.push({ target: target.name, batchSeed, failure, ...(file ? { file } : {}) })
      log(
        `FAIL ${target.name} (batch seed ${batchSeed}, fast-check path ${details.counterexamplePath}): ${failure}`,
      )
      if (file) log(`  saved ${file}`)
      live.splice(live.indexOf(target), 1)
    }
  } finally {
    for (const target of options.targets) {
      if (skipped[target.name] === undefined) await target.teardown?.()
    }
  }
  return { seed: options.seed, inputs, skipped, failures }
}
