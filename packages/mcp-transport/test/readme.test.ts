// The README's options tables against the exported defaults.
import { readFileSync } from 'node:fs'
import { tableUnder, unquote } from '@tollgate/test-kit/markdown-table'
import { describe, expect, it } from 'vitest'
import {
  BOUNDED_STDIO_DEFAULTS,
  MCP_BODY_OPTIONS,
  MCP_HTTP_OPTIONS,
  RESULT_BUDGET_OPTIONS,
  ROUTE_HEAD_OPTIONS,
  SESSION_POOL_OPTIONS,
} from '../src/index.js'

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const REFERENCE = readFileSync(new URL('../../../docs/mcp-transport.md', import.meta.url), 'utf8')

/** `option -> default` from the table under `### <heading>` in the Options section. */
function table(heading: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const row of tableUnder(README, heading)) {
    // Only a default written as a literal code span first is compared (not prose defaults).
    const raw = /^`([^`]+)`/.exec(row.default ?? '')?.[1]
    if (raw === undefined) continue
    out[unquote(row.option ?? '')] = raw.startsWith("'") ? raw.slice(1, -1) : JSON.parse(raw)
  }
  return out
}

describe('README', () => {
  it('lists the exported defaults in the options tables', () => {
    // The README writes the unset and unbounded defaults in prose ("as `maxLineBytes`", "none").
    const { maxBufferSize, maxStringBytes, maxNumberLength, ...stdio } = BOUNDED_STDIO_DEFAULTS
    expect([maxBufferSize, maxStringBytes, maxNumberLength]).toEqual([
      undefined,
      Number.POSITIVE_INFINITY,
      Number.POSITIVE_INFINITY,
    ])
    expect(table('BoundedStdioServerTransport')).toEqual(stdio)
    expect(table('resultBudget')).toEqual({ ...RESULT_BUDGET_OPTIONS.defaults })
  })

  it('holds the HTTP control table and, in docs/mcp-transport.md, the body control table, each generated from its declaration', () => {
    expect(README).toContain(MCP_HTTP_OPTIONS.markdown())
    expect(REFERENCE).toContain(MCP_BODY_OPTIONS.markdown())
    expect(REFERENCE).toContain(ROUTE_HEAD_OPTIONS.markdown())
  })

  it('holds the SessionPool table generated from its declaration', () => {
    expect(README).toContain(SESSION_POOL_OPTIONS.markdown())
  })
})
