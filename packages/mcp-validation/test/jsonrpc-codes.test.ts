// The 2026-07-28 revision reserves JSON-RPC codes -32020 to -32099 for the protocol (-32020
// header mismatch, -32021 missing client capability, -32022 unsupported version); a server's
// own codes belong in -32000 to -32019. This holds every code this package can answer with: the
// exported error objects, and every numeric code literal in its sources (so a code added later
// in a new file is held too).
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { REUSED_ID_ERROR, UNKNOWN_TOOL_ERROR } from '../src/index.js'

// JSON-RPC 2.0 §5.1: parse error, invalid request, method not found, invalid params, internal.
const STANDARD = new Set([-32700, -32600, -32601, -32602, -32603])
const allowed = (code: number) => STANDARD.has(code) || (code <= -32000 && code >= -32019)

const SRC = new URL('../src/', import.meta.url)
const literals = readdirSync(SRC)
  .filter((f) => f.endsWith('.ts'))
  .flatMap((f) =>
    [...readFileSync(new URL(f, SRC), 'utf8').matchAll(/-3[0-9]{4}\b/g)].map((m) => Number(m[0])),
  )

describe('JSON-RPC error codes of @tollgate/mcp-validation', () => {
  it('answers only standard codes or codes in -32000 to -32019, never the range 2026-07-28 reserves', () => {
    expect(allowed(UNKNOWN_TOOL_ERROR.code)).toBe(true)
    expect(allowed(REUSED_ID_ERROR.code)).toBe(true)
    expect(literals.length).toBeGreaterThan(0)
    expect(literals.filter((code) => !allowed(code))).toEqual([])
  })

  it('keeps an unknown tool at -32602, the code the 2026-07-28 revision gives it', () => {
    expect(UNKNOWN_TOOL_ERROR.code).toBe(-32602)
  })
})
