import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { isStrictJson } from '@tollgate/test-kit/strict-json'
import { describe, expect, it } from 'vitest'
import { byteCuts, verdict } from './helpers/preflight-runs.js'

// JSONTestSuite (nst/JSONTestSuite, MIT), vendored as test data under `test/corpus/` with its
// LICENSE. Read relative to this file, so it also loads from Stryker's sandbox copy.
const CORPUS = new URL('./corpus/json-test-suite/', import.meta.url)
const dir = fileURLToPath(new URL('test_parsing/', CORPUS))
const transformDir = fileURLToPath(new URL('test_transform/', CORPUS))
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
      (f) => f.startsWith('i_') && verdict(load(f)).ok !== isStrictJson(load(f)),
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

describe('preflight on JSONTestSuite test_transform', () => {
  const transforms = readdirSync(transformDir)
    .filter((f) => f.endsWith('.json'))
    .sort()

  it('reads the whole transform corpus', () => {
    expect(transforms.length).toBeGreaterThan(15)
  })

  it('gives every transform input the verdict of JSON.parse over a strict UTF-8 decode', () => {
    const differ = transforms.filter((f) => {
      const bytes = new Uint8Array(readFileSync(`${transformDir}${f}`))
      return verdict(bytes).ok !== isStrictJson(bytes)
    })
    expect(differ).toEqual([])
  })
})
