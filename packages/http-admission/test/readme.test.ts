import { readFileSync } from 'node:fs'
import { refusalCodeSpec } from '@tollgate/json-budget'
import { tableUnder } from '@tollgate/test-kit/markdown-table'
import { describe, expect, it } from 'vitest'
import { DEFAULT_IN_FLIGHT_BYTES } from '../src/budget.js'
import { HTTP_ADMISSION_DEFAULTS } from '../src/index.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

const code = (cell: string | undefined) => /^`([^`]*)`$/.exec(cell ?? '')?.[1]
// A default cell opens with the value as a literal; units may follow it.
const leading = (cell: string | undefined) => /^`([^`]*)`/.exec(cell ?? '')?.[1]

describe('README', () => {
  it('lists every exported default with its value', () => {
    const rows = new Map(
      tableUnder(readme, 'Options').map((row) => [code(row.option), row.default]),
    )
    for (const [name, value] of Object.entries(HTTP_ADMISSION_DEFAULTS)) {
      const literal = leading(rows.get(name))
      expect(literal, name).toBeDefined()
      expect(JSON.parse(literal as string), name).toEqual(value)
    }
    expect(leading(rows.get('budget'))).toBe('defaultInFlightBudget')
    expect(DEFAULT_IN_FLIGHT_BYTES).toBe(256 * 1024 * 1024)
    const budgetRow = tableUnder(readme, 'Options').find((row) => row.option === '`budget`')
    expect(budgetRow?.default).toContain('256 MiB')
  })

  it('gives every error code the status of its code table', () => {
    const rows = tableUnder(readme, 'Error codes')
    expect(rows.length).toBeGreaterThan(10)
    // A row may name several codes of one status, comma-separated.
    for (const row of rows) {
      for (const name of (row.code ?? '').split(', ').map((cell) => code(cell) ?? cell)) {
        const spec = refusalCodeSpec(name)
        expect(spec, name).toBeDefined()
        expect(row.status, name).toBe(spec?.status === undefined ? '—' : String(spec.status))
      }
    }
  })
})
