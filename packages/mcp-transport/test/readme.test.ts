// The README's options tables are the ones their declarations generate.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  BOUNDED_STDIO_OPTIONS,
  MCP_BODY_OPTIONS,
  MCP_HTTP_OPTIONS,
  RESULT_BUDGET_OPTIONS,
  ROUTE_HEAD_OPTIONS,
  SESSION_POOL_OPTIONS,
} from '../src/index.js'

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const REFERENCE = readFileSync(new URL('../../../docs/mcp-transport.md', import.meta.url), 'utf8')

describe('README', () => {
  it('holds the stdio and result budget tables, each generated from its declaration', () => {
    expect(README).toContain(BOUNDED_STDIO_OPTIONS.markdown())
    expect(README).toContain(RESULT_BUDGET_OPTIONS.markdown())
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
