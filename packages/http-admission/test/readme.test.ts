import { readFileSync } from 'node:fs'
import { refusalCodeSpec } from '@tollgate/json-budget'
import { tableUnder } from '@tollgate/test-kit/markdown-table'
import { describe, expect, it } from 'vitest'
import {
  FASTIFY_ADMISSION_OPTIONS,
  HONO_ADMISSION_OPTIONS,
  KOA_ADMISSION_OPTIONS,
} from '../src/adapter-options.js'
import { DEFAULT_IN_FLIGHT_BYTES } from '../src/budget.js'
import { ADMISSION_HOST_OPTIONS, BODY_ADMISSION_OPTIONS, CALLER_KEY_OPTIONS } from '../src/index.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
// The long reference (the middleware's own options among it) lives in docs/.
const reference = readFileSync(new URL('../../../docs/http-admission.md', import.meta.url), 'utf8')

const code = (cell: string | undefined) => /^`([^`]*)`$/.exec(cell ?? '')?.[1]

describe('README', () => {
  it('holds the options tables generated from the code, and the budget default', () => {
    expect(readme).toContain(BODY_ADMISSION_OPTIONS.markdown())
    expect(reference).toContain(ADMISSION_HOST_OPTIONS.markdown())
    expect(reference).toContain(CALLER_KEY_OPTIONS.markdown())
    expect(reference).toContain(FASTIFY_ADMISSION_OPTIONS.markdown())
    expect(HONO_ADMISSION_OPTIONS.markdown()).toBe(FASTIFY_ADMISSION_OPTIONS.markdown())
    expect(KOA_ADMISSION_OPTIONS.markdown()).toBe(FASTIFY_ADMISSION_OPTIONS.markdown())
    expect(readme.split('\n').length).toBeLessThanOrEqual(201)
    expect(DEFAULT_IN_FLIGHT_BYTES).toBe(256 * 1024 * 1024)
    const budgetRow = tableUnder(readme, '`bodyAdmission(options)`: the body control').find(
      (row) => row.option === '`budget`',
    )
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
