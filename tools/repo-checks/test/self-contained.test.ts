import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkDocument } from '../src/check.js'

// A user clones the repository alone: nothing in it may read, or send a reader to, a folder
// beside the clone. The needles are built from parts so this file does not name them itself.
const root = join(new URL('../../..', import.meta.url).pathname)
const NEEDLES = [
  ['..', 'shared'].join('/'),
  ['shared', 'corpus'].join('/'),
  ['shared', 'research'].join('/'),
]

function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && !f.startsWith('.ci/'))
}

describe('the repository', () => {
  it('names no folder outside the clone in any tracked file outside .ci/', () => {
    const offenders: string[] = []
    for (const file of trackedFiles()) {
      let text: string
      try {
        text = readFileSync(join(root, file), 'utf8')
      } catch {
        continue // a file deleted in the work tree but still tracked
      }
      for (const needle of NEEDLES) {
        // A folder name that merely starts like a needle (a workspace link to a sibling
        // package such as `../<sibling>-limits`) names nothing outside the clone.
        const at = new RegExp(`${needle.replaceAll('.', '\\.')}(?![A-Za-z0-9_-])`)
        if (at.test(text)) offenders.push(`${file}: ${needle}`)
      }
    }
    expect(offenders).toEqual([])
  })

  it('vendors the JSON conformance corpus with its licence', () => {
    const files = trackedFiles()
    const base = 'packages/lexical-preflight/test/corpus/json-test-suite/'
    expect(files).toContain(`${base}LICENSE`)
    expect(files.filter((f) => f.startsWith(`${base}test_parsing/`)).length).toBeGreaterThan(300)
    expect(files.filter((f) => f.startsWith(`${base}test_transform/`)).length).toBeGreaterThan(15)
  })
})

describe('checkDocument', () => {
  it('refuses a citation of a file that exists only beside the repository', () => {
    const outer = mkdtempSync(join(tmpdir(), 'repo-checks-outer-'))
    const repo = join(outer, 'repo')
    mkdirSync(join(outer, 'beside'))
    mkdirSync(repo)
    writeFileSync(join(outer, 'beside', 'DESIGN.md'), '# design\n')
    writeFileSync(join(repo, 'package.json'), '{}')
    writeFileSync(join(repo, 'README.md'), 'See `../beside/DESIGN.md` for the design.\n')
    const problems = checkDocument('README.md', repo)
    expect(problems.map((p) => p.cite)).toEqual(['../beside/DESIGN.md'])
  })
})
