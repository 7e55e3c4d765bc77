import { readFileSync } from 'node:fs'
import { ADMISSION_CODES, type AdmissionCode } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { tableUnder } from '../../../tools/repo-checks/src/markdown-table.js'
import { DEFAULT_IN_FLIGHT_BYTES, HTTP_ADMISSION_DEFAULTS } from '../src/index.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

const code = (cell: string | undefined) => /^`([^`]*)`$/.exec(cell ?? '')?.[1]

describe('README', () => {
  it('lists every exported default with its value', () => {
    const rows = new Map(
      tableUnder(readme, 'Options').map((row) => [code(row.option), row.default]),
    )
    for (const [name, value] of Object.entries(HTTP_ADMISSION_DEFAULTS)) {
      const literal = code(rows.get(name))
      expect(literal, name).toBeDefined()
      expect(JSON.parse(literal as string), name).toEqual(value)
    }
    expect(code(rows.get('budget'))).toBe('defaultInFlightBudget')
    expect(DEFAULT_IN_FLIGHT_BYTES).toBe(256 * 1024 * 1024)
    const budgetRow = tableUnder(readme, 'Options').find((row) => row.option === '`budget`')
    expect(budgetRow?.['what it does']).toContain('256 MiB')
  })

  it('gives every error code the status of the shared code table', () => {
    const rows = tableUnder(readme, 'Error codes')
    expect(rows.length).toBeGreaterThan(10)
    for (const row of rows) {
      const name = code(row.code) as AdmissionCode
      expect(Object.hasOwn(ADMISSION_CODES, name), name).toBe(true)
      const status = ADMISSION_CODES[name].status
      expect(row.status, name).toBe(status === undefined ? '—' : String(status))
    }
  })
})
