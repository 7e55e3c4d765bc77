// Each code this package raises names, as its `option`, an option a caller of this package can
// set: a key of one of its options interfaces (checked by the type below at `tsc`), that its
// resolver takes (an unknown name is refused), and that docs/errors.md's "how to fix" names.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { JSON_BUDGET_CODES } from '@tollgate/json-budget'
import { PREFLIGHT_CODES } from '@tollgate/lexical-preflight'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { admissionError } from '../src/codes.js'
import {
  type BoundedStdioOptions,
  createMcpHttpAdmission,
  MCP_TRANSPORT_CODES,
  type McpHttpOptions,
  type McpTransportCode,
  resolveBoundedStdioOptions,
} from '../src/index.js'

type CodeOption = (typeof MCP_TRANSPORT_CODES)[McpTransportCode]['option']

// One value each resolver takes for the option, so accepting it shows the name is known.
const ACCEPTS: Record<CodeOption, () => unknown> = {
  allowedHosts: () => createMcpHttpAdmission({ allowedHosts: ['example.test'] }),
  allowedOrigins: () => createMcpHttpAdmission({ allowedOrigins: ['https://example.test'] }),
  maxLineBytes: () => resolveBoundedStdioOptions({ maxLineBytes: 1024 }),
  supportedProtocolVersions: () =>
    createMcpHttpAdmission({ supportedProtocolVersions: ['2025-11-25'] }),
}

// Found by walking up from this file, not at a fixed depth: the mutation jobs run these tests
// from a copy of the package two folders further down (Stryker's sandbox, recheck's copy).
function findUp(relative: string): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const candidate = join(dir, relative)
    if (existsSync(candidate)) return candidate
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`${relative} not found above ${import.meta.url}`)
    dir = parent
  }
}

const ERRORS_DOC = readFileSync(findUp('docs/errors.md'), 'utf8')

describe('MCP_TRANSPORT_CODES', () => {
  it('names a key of the package options interfaces in every code', () => {
    expectTypeOf<CodeOption>().toExtend<keyof McpHttpOptions | keyof BoundedStdioOptions>()
    for (const [code, spec] of Object.entries(MCP_TRANSPORT_CODES)) {
      expect(spec.option, code).toBeTypeOf('string')
      expect(Object.keys(ACCEPTS), code).toContain(spec.option)
    }
  })

  it('names options the resolvers take', () => {
    for (const accept of Object.values(ACCEPTS)) expect(accept).not.toThrow()
    // The control: a name that is not an option is refused by the same resolvers.
    expect(() => createMcpHttpAdmission({ allowedHost: ['x'] } as never)).toThrow(TypeError)
    expect(() => resolveBoundedStdioOptions({ maxLineByte: 1 } as never)).toThrow(TypeError)
  })

  it('names the option in the how-to-fix column of docs/errors.md', () => {
    for (const [code, spec] of Object.entries(MCP_TRANSPORT_CODES)) {
      const row = ERRORS_DOC.split('\n').find((line) => line.startsWith(`| \`${code}\``))
      expect(row, code).toBeDefined()
      const fix = row?.split('|').at(-2) ?? ''
      expect(fix, code).toContain(`\`${spec.option}\``)
    }
  })

  it('builds each refusal from the table that owns its code: this one, the preflight, json-budget', () => {
    const own = admissionError('ERR_LINE_TOO_LARGE', { limit: 9 })
    expect([own.status, own.option, own.limit]).toEqual([413, 'maxLineBytes', 9])
    expect(own.message).toContain(MCP_TRANSPORT_CODES.ERR_LINE_TOO_LARGE.message)
    const syntax = admissionError('ERR_JSON_SYNTAX')
    expect([syntax.status, syntax.message]).toEqual([422, PREFLIGHT_CODES.ERR_JSON_SYNTAX.message])
    const large = admissionError('ERR_JSON_TOO_LARGE', { limit: 5 })
    expect(large.status).toBe(JSON_BUDGET_CODES.ERR_JSON_TOO_LARGE.status)
    expect(large.message).toContain(JSON_BUDGET_CODES.ERR_JSON_TOO_LARGE.message)
  })
})
