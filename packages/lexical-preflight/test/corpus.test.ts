import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { byteCuts, reference, verdict } from './helpers.js'

// JSONTestSuite (nst/JSONTestSuite), read in place from the shared corpus: `../shared/corpus`
// from the repository root, found by walking up from this file so the suite also loads from
// Stryker's sandbox copy (two directories deeper).
const SUITE = 'shared/corpus/json-test-suite/test_parsing/'
function corpusDir(): string {
  for (let up = '../../../../'; up.length <= 8 * 3; up += '../') {
    const candidate = fileURLToPath(new URL(up + SUITE, import.meta.url))
    if (existsSync(candidate)) return candidate
  }
  throw new Error(`${SUITE} not found above ${fileURLToPath(import.meta.url)}`)
}
const dir = corpusDir()
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
const load = (f: string) => new Uint8Array(readFileSync(`${dir}${f}`))

describe('preflight on JSONTestSuite', () => {
  it('reads the whole corpus', () => {
    expect(files.length).toBeGreaterThan(300)
  })

  it('accepts every y_ file', () => {
    const refused = files.filter((f) => f.startsWith('y_') && !verdict(load(f)).ok)
    expect(refused).toEqual([])
  })

  it('refuses every n_ file', () => {
    const accepted = files.filter((f) => f.startsWith('n_') && verdict(load(f)).ok)
    expect(accepted).toEqual([])
  })

  it('gives every i_ file the verdict of JSON.parse over a strict UTF-8 decode', () => {
    const differ = files.filter(
      (f) => f.startsWith('i_') && verdict(load(f)).ok !== reference(load(f)),
    )
    expect(differ).toEqual([])
  })

  it('gives every file the same outcome byte by byte as in one chunk', () => {
    const differ = files.filter((f) => {
      const bytes = load(f)
      if (bytes.length > 5000) return false
      return (
        JSON.stringify(verdict(bytes, byteCuts(bytes.length))) !== JSON.stringify(verdict(bytes))
      )
    })
    expect(differ).toEqual([])
  })

  it('gives every file under 300 bytes the same outcome at every two-chunk split', () => {
    const differ: string[] = []
    for (const f of files) {
      const bytes = load(f)
      if (bytes.length > 300) continue
      const whole = JSON.stringify(verdict(bytes))
      for (let cut = 0; cut <= bytes.length; cut++) {
        if (JSON.stringify(verdict(bytes, [cut])) !== whole) {
          differ.push(`${f}@${cut}`)
          break
        }
      }
    }
    expect(differ).toEqual([])
  })
})
