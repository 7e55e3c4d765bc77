import { readFileSync } from 'node:fs'
import { ADMISSION_CODE_LIST, ADMISSION_CODES, statusForCode } from '@tollgate/json-budget'
import { describe, expect, it } from 'vitest'
import { parseTables, unquote } from '../src/markdown-table.js'

// docs/errors.md is the catalogue a user reads; ADMISSION_CODES is what the packages raise.
// Held equal in both directions so an added code without a row, a row for a code that no longer
// exists, and a status that drifted each fail here rather than in a user's switch statement.
const DOC = new URL('../../../docs/errors.md', import.meta.url)

interface Row {
  readonly code: string
  readonly when: string
  readonly status: string
  readonly fix: string
}

function readRows(): Row[] {
  const tables = parseTables(readFileSync(DOC, 'utf8')).filter(
    (table) =>
      table.header.map((h) => h.toLowerCase()).join('|') ===
      'code|raised when|http status|how to fix',
  )
  expect(tables, 'docs/errors.md holds exactly one code table').toHaveLength(1)
  return (tables[0]?.rows ?? []).map((cells) => {
    expect(cells, `row ${cells[0]} has four cells`).toHaveLength(4)
    return {
      code: unquote(cells[0] ?? ''),
      when: cells[1] ?? '',
      status: cells[2] ?? '',
      fix: cells[3] ?? '',
    }
  })
}

describe('ADMISSION_CODES (docs/errors.md)', () => {
  it('lists every exported code exactly once, with its status', () => {
    const rows = readRows()
    const documented = rows.map((row) => row.code)
    expect(new Set(documented).size, 'no code is documented twice').toBe(documented.length)
    // Both directions: a code missing from the doc and a row naming no exported code.
    expect([...documented].sort()).toEqual([...ADMISSION_CODE_LIST].sort())
    expect([...documented].sort()).toEqual(Object.keys(ADMISSION_CODES).sort())
    for (const row of rows) {
      const status = statusForCode(row.code as keyof typeof ADMISSION_CODES)
      expect(row.status, `status of ${row.code}`).toBe(status === undefined ? '—' : String(status))
    }
  })

  it('keeps the rows in the order of the exported table', () => {
    expect(readRows().map((row) => row.code)).toEqual([...ADMISSION_CODE_LIST])
  })

  it('says when each code is raised and how to fix it, naming the option to raise', () => {
    for (const row of readRows()) {
      expect(row.when.length, `raised-when of ${row.code}`).toBeGreaterThan(20)
      expect(row.fix.length, `how-to-fix of ${row.code}`).toBeGreaterThan(10)
      const option = ADMISSION_CODES[row.code as keyof typeof ADMISSION_CODES].option
      if (option !== undefined)
        expect(row.fix, `fix of ${row.code} names ${option}`).toContain(`\`${option}\``)
    }
  })
})
