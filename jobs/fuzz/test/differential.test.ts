import { chargeJson } from '@tollgate/json-budget'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { anyDocument, anySplits, chunksOf } from '../src/arbitraries.js'
import { ddmin } from '../src/ddmin.js'
import { runFuzz } from '../src/run.js'
import { strictParse } from '../src/strict-json.js'
import type { ChunkedBytes } from '../src/target.js'
import { minimizeChunked } from '../src/target.js'
import { judgeCharge } from '../src/targets/charge.js'
import { TARGETS } from '../src/targets/index.js'
import { judgePreflight, type PreflightImpl, realPreflight } from '../src/targets/preflight.js'

// The fuzzer is itself a control: these tests plant a bug of the kind it exists to find and
// show that it finds and minimizes it, so a fuzzer that silently checks nothing fails here.
describe('judgePreflight', () => {
  // A scanner that validates each chunk's UTF-8 on its own: right one-shot, wrong whenever a
  // chunk edge falls inside a multi-byte sequence (the classic incremental-decoder bug).
  const chunkEdgeBug: PreflightImpl = {
    oneShot: realPreflight.oneShot,
    chunked(chunks, bom) {
      const whole = Buffer.concat(chunks)
      const verdict = strictParse(whole)
      if (!verdict.ok && verdict.reason === 'utf8') return realPreflight.chunked(chunks, bom)
      for (const chunk of chunks) {
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(chunk)
        } catch {
          return { ok: false, code: 'ERR_JSON_INVALID_UTF8', offset: 0 }
        }
      }
      return realPreflight.chunked(chunks, bom)
    },
  }

  it('finds a chunk-edge UTF-8 bug and delta-debugs it to a few bytes', async () => {
    const property = fc.property(
      fc.record({ bytes: anyDocument, splits: anySplits }),
      (input) => judgePreflight(chunkEdgeBug, input) === undefined,
    )
    const details = fc.check(property, { seed: 20261129, numRuns: 2_000 })
    expect(details.failed).toBe(true)
    const found = details.counterexample![0] as ChunkedBytes
    const minimal = await minimizeChunked(
      found,
      async (c) => judgePreflight(chunkEdgeBug, c) !== undefined,
      ddmin,
      2_000,
    )
    expect(judgePreflight(chunkEdgeBug, minimal)).toMatch(/chunked/)
    // A multi-byte sequence and one split inside it is all the bug needs.
    expect(minimal.bytes.length).toBeLessThanOrEqual(6)
    expect(chunksOf(minimal.bytes, minimal.splits).length).toBeGreaterThanOrEqual(2)
  })

  it('finds a scanner that admits a trailing comma', () => {
    const lenient: PreflightImpl = {
      oneShot: (bytes, bom) => {
        const text = Buffer.from(bytes)
          .toString('latin1')
          .replace(/,\s*([\]}])/g, '$1')
        return realPreflight.oneShot(Buffer.from(text, 'latin1'), bom)
      },
      chunked: (chunks, bom) => lenient.oneShot(Buffer.concat(chunks), bom),
    }
    expect(judgePreflight(lenient, { bytes: Buffer.from('[1,]'), splits: [] })).toMatch(
      /JSON.parse refuses/,
    )
    expect(
      judgePreflight(realPreflight, { bytes: Buffer.from('[1,]'), splits: [] }),
    ).toBeUndefined()
  })
})

describe('judgeCharge', () => {
  it('finds a charger that prices a lone surrogate as 3 bytes instead of its 6-byte escape', () => {
    const wrong = (value: unknown, limits?: { maxBytes?: number }) => {
      const charged = chargeJson(value, limits)
      let lone = 0
      JSON.stringify(value, (_k, v) => {
        if (typeof v === 'string')
          lone += (
            v.match(
              /(?:[\ud800-\udbff](?![\udc00-\udfff]))|(?:(?<![\ud800-\udbff])[\udc00-\udfff])/g,
            ) ?? []
          ).length
        return v
      })
      return { bytes: charged.bytes - 3 * lone }
    }
    const found = fc.check(
      fc.property(
        TARGETS.find((t) => t.name === 'charge-bytes')!.arbitrary,
        (v) => judgeCharge(wrong, v) === undefined,
      ),
      { seed: 7, numRuns: 2_000 },
    )
    expect(found.failed).toBe(true)
    // fast-check shrinks it to one lone surrogate, alone or in a tiny container.
    const shrunk = JSON.stringify(found.counterexample![0])
    expect(shrunk.length, shrunk).toBeLessThanOrEqual(16)
    expect(shrunk).toMatch(/\\ud[89a-f]/)
  })
})

describe('runFuzz', () => {
  it('runs every target on seeded inputs and finds no disagreement', async () => {
    const summary = await runFuzz({
      seconds: 30,
      seed: 1,
      targets: TARGETS,
      batchRuns: 25,
      maxBatches: TARGETS.length,
      save: false,
    })
    expect(summary.skipped).toEqual({})
    expect(summary.failures).toEqual([])
    for (const target of TARGETS) expect(summary.inputs[target.name]).toBeGreaterThanOrEqual(25)
  })
})
