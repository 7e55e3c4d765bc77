import { readFileSync } from 'node:fs'
import { tableUnder, unquote } from '@tollgate/test-kit/markdown-table'
import { describe, expect, it } from 'vitest'
import { PREFLIGHT_DEFAULTS, PREFLIGHT_OPTIONS } from '../src/index.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

/** The `| option | type | Default: | what it does |` rows of the README's Options section. */
function optionRows(): Map<string, string> {
  return new Map(
    tableUnder(readme, 'Options').map((row) => [unquote(row.option ?? ''), row.default ?? '']),
  )
}

function parseDefault(cell: string): unknown {
  if (cell === 'none') return Number.POSITIVE_INFINITY
  const quoted = /^`'(\w+)'`$/.exec(cell)
  if (quoted) return quoted[1]
  const mib = /^(\d+) MiB$/.exec(cell)
  if (mib) return Number(mib[1]) * 1024 * 1024
  return Number(cell.replace(/,/g, ''))
}

describe('README', () => {
  it('lists the exported defaults in the options table', () => {
    expect(readme).toContain(PREFLIGHT_OPTIONS.markdown())
    const rows = optionRows()
    const exported: Record<string, unknown> = { ...PREFLIGHT_DEFAULTS }
    expect([...rows.keys()].sort()).toEqual(Object.keys(exported).sort())
    for (const [name, cell] of rows)
      expect([name, parseDefault(cell)]).toEqual([name, exported[name]])
  })

  it('cites only test names that exist', () => {
    const section = readme.slice(readme.indexOf('## Tests that hold each claim'))
    let checked = 0
    for (const bullet of section.split('\n- ').slice(1)) {
      let source: string | undefined
      for (const [, token] of bullet.matchAll(/`([^`]+)`/g)) {
        if (token === undefined) continue
        if (/^test\/[\w.-]+\.test\.ts$/.test(token)) {
          source = readFileSync(new URL(`../${token}`, import.meta.url), 'utf8')
        } else if (source !== undefined) {
          expect([token, source.includes(token)]).toEqual([token, true])
          checked++
        }
      }
    }
    expect(checked).toBeGreaterThan(20)
  })
})
