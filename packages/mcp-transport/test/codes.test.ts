// Each code this package raises names, as its `option`, an option a caller of this package can
// set: a key of one of its options interfaces (checked by the type below at `tsc`), that its
// resolver takes (an unknown name is refused), and that docs/errors.md's "how to fix" names.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { JSON_BUDGET_CODES, refusalCodeSpec } from '@tollgate/json-budget'
import { PREFLIGHT_CODES } from '@tollgate/lexical-preflight'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { admissionError } from '../src/codes.js'
import {
  type BoundedStdioOptions,
  createMcpHttpAdmission,
  MCP_TRANSPORT_CODES,
  type McpHttpOptions,
  type McpRouteHeadOptions,
  type McpTransportCode,
  mcpRouteHead,
  resolveBoundedStdioOptions,
  SessionPool,
  type SessionPoolOptions,
} from '../src/index.js'

type CodeOption = Exclude<(typeof MCP_TRANSPORT_CODES)[McpTransportCode]['option'], undefined>

// One value each resolver takes for the option, so accepting it shows the name is known.
const ACCEPTS: Record<CodeOption, () => unknown> = {
  allowedHosts: () => createMcpHttpAdmission({ allowedHosts: ['example.test'] }),
  allowedOrigins: () => createMcpHttpAdmission({ allowedOrigins: ['https://example.test'] }),
  maxLineBytes: () => resolveBoundedStdioOptions({ maxLineBytes: 1024 }),
  supportedProtocolVersions: () =>
    createMcpHttpAdmission({ supportedProtocolVersions: ['2025-11-25'] }),
  methods: () => mcpRouteHead({ methods: ['tools/call'] }),
  tools: () => mcpRouteHead({ tools: { echo: {} } }),
  prompts: () => mcpRouteHead({ prompts: ['greet'] }),
  resources: () => mcpRouteHead({ resources: ['docs://{id}'] }),
  quota: () => mcpRouteHead({ quota: { acquire: () => ({ ok: true, release: () => {} }) } }),
  maxSessions: () => new SessionPool({ maxSessions: 2 }),
  maxSessionsPerKey: () => new SessionPool({ maxSessionsPerKey: 2 }),
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
  it('names a key of the package options interfaces in every code that has an option', () => {
    expectTypeOf<CodeOption>().toExtend<
      | keyof McpHttpOptions
      | keyof BoundedStdioOptions
      | keyof McpRouteHeadOptions
      | keyof SessionPoolOptions
    >()
    for (const [code, spec] of Object.entries(MCP_TRANSPORT_CODES)) {
      if (spec.option === undefined) continue
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
      if (spec.option === undefined) continue
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

// Every code literal in this package's sources, read from the files themselves: a code added to
// a step without a row in the table fails here. Codes owned by the packages this one builds on
// (the preflight's, json-budget's, http-admission's) are registered by their owners.
function codesInSources(): Set<string> {
  const src = join(dirname(fileURLToPath(import.meta.url)), '../src')
  const found = new Set<string>()
  for (const name of readdirSync(src)) {
    if (!name.endsWith('.ts')) continue
    for (const m of readFileSync(join(src, name), 'utf8').matchAll(/['"`](ERR_[A-Z0-9_]+)['"`]/g)) {
      found.add(m[1] as string)
    }
  }
  return found
}

describe('MCP_TRANSPORT_CODES (population)', () => {
  it('holds every code the package sources name that no package below it owns', () => {
    const found = codesInSources()
    // The scan reads real sources: the 2026-era codes and the stdio ones are among them.
    expect(found).toContain('ERR_MCP_QUOTA')
    expect(found).toContain('ERR_JSONRPC_INVALID_MESSAGE')
    const missing: string[] = []
    for (const code of found) {
      const owner = refusalCodeSpec(code)?.owner
      if (owner === '@tollgate/mcp-transport') continue
      if (BELOW.has(owner as string)) continue
      missing.push(code)
    }
    expect(missing).toEqual([])
  })

  it('holds no code the package sources never name', () => {
    const found = codesInSources()
    expect(Object.keys(MCP_TRANSPORT_CODES).filter((code) => !found.has(code))).toEqual([])
  })
})

const BELOW = new Set([
  '@tollgate/json-budget',
  '@tollgate/lexical-preflight',
  '@tollgate/http-admission',
])
