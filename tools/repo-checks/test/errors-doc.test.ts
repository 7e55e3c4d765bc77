import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { HTTP_ADMISSION_CODES } from '@tollgate/http-admission'
import { JSON_BUDGET_CODES, listRefusalCodes, refusalCodeSpec } from '@tollgate/json-budget'
import { PREFLIGHT_CODES } from '@tollgate/lexical-preflight'
import { MCP_TRANSPORT_CODES } from '@tollgate/mcp-transport'
import { parseTables, unquote } from '@tollgate/test-kit/markdown-table'
import { describe, expect, it } from 'vitest'

// docs/errors.md is the catalogue a user reads; the code tables each package registers (with
// `defineRefusalCodes`) are what the packages raise.
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

// The tables, in the order docs/errors.md lists them (each package's own table order).
const TABLES = [JSON_BUDGET_CODES, PREFLIGHT_CODES, HTTP_ADMISSION_CODES, MCP_TRANSPORT_CODES]
const CODE_LIST: readonly string[] = TABLES.flatMap((table) => Object.keys(table))

function spec(code: string) {
  const entry = refusalCodeSpec(code)
  if (entry === undefined) throw new Error(`${code} is not registered`)
  return entry
}

const ROOT = new URL('../../../', import.meta.url).pathname

/** Every `'ERR_…'` / `"ERR_…"` string literal in the TypeScript sources of packages and apps. */
function sourceCodes(): Set<string> {
  const codes = new Set<string>()
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith('.ts')) {
        for (const m of readFileSync(full, 'utf8').matchAll(/['"](ERR_[A-Z0-9_]+)['"]/g))
          codes.add(m[1]!)
      }
    }
  }
  for (const parent of ['packages', 'apps']) {
    for (const name of readdirSync(join(ROOT, parent))) {
      const src = join(ROOT, parent, name, 'src')
      try {
        walk(src)
      } catch {
        // a package without src/ yet
      }
    }
  }
  return codes
}

function readOtherRows(): string[][] {
  const tables = parseTables(readFileSync(DOC, 'utf8')).filter(
    (table) =>
      table.header.map((h) => h.toLowerCase()).join('|') ===
      'code|raised by|raised when|answered as|how to fix',
  )
  expect(tables, 'docs/errors.md holds exactly one table of other codes').toHaveLength(1)
  return (tables[0]?.rows ?? []).map((cells) => cells.map((c) => c.trim()))
}

describe('refusal code tables (docs/errors.md)', () => {
  it('lists every exported code exactly once, with its status', () => {
    const rows = readRows()
    const documented = rows.map((row) => row.code)
    expect(new Set(documented).size, 'no code is documented twice').toBe(documented.length)
    // Both directions: a code missing from the doc and a row naming no exported code.
    expect([...documented].sort()).toEqual([...CODE_LIST].sort())
    expect([...documented].sort()).toEqual(
      listRefusalCodes()
        .map((entry) => entry.code)
        .sort(),
    )
    for (const row of rows) {
      const status = spec(row.code).status
      expect(row.status, `status of ${row.code}`).toBe(status === undefined ? '—' : String(status))
    }
  })

  it('keeps the rows in the order of the exported tables', () => {
    expect(readRows().map((row) => row.code)).toEqual([...CODE_LIST])
  })

  it('says when each code is raised and how to fix it, naming the option to raise', () => {
    for (const row of readRows()) {
      expect(row.when.length, `raised-when of ${row.code}`).toBeGreaterThan(20)
      expect(row.fix.length, `how-to-fix of ${row.code}`).toBeGreaterThan(10)
      const option = spec(row.code).option
      if (option !== undefined)
        expect(row.fix, `fix of ${row.code} names ${option}`).toContain(`\`${option}\``)
    }
  })

  it('lists every other code the sources use exactly once', () => {
    const rows = readOtherRows()
    const documented = rows.map((cells) => unquote(cells[0] ?? ''))
    expect(new Set(documented).size, 'no code is documented twice').toBe(documented.length)
    const admission = new Set<string>(CODE_LIST)
    const used = [...sourceCodes()].filter((code) => !admission.has(code)).sort()
    // Both directions: a code a package starts returning without a row fails, and so does a
    // row for a code no source uses any more.
    expect([...documented].sort()).toEqual(used)
    for (const cells of rows) {
      expect(cells, `row ${cells[0]} has five cells`).toHaveLength(5)
      for (const cell of cells) expect(cell.length, `a cell of ${cells[0]}`).toBeGreaterThan(3)
    }
  })
})
