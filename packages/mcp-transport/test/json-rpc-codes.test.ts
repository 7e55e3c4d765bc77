// The JSON-RPC error codes this package answers with: its own inside -32000…-32019, the
// JSON-RPC 2.0 codes, and from the range the MCP spec reserves (-32020…-32099) only the two
// codes the spec defines, each for what the spec defines it.
import { describe, expect, it } from 'vitest'
import {
  MCP_MODERN_ERRORS,
  METHOD_NOT_FOUND_ERROR,
  MODERN_BATCH_ERROR,
  QUOTA_ERROR,
  UNKNOWN_NAME_ERROR,
} from '../src/index.js'
import { JSON_RPC_ERRORS } from '../src/json-rpc.js'
import { headerMismatchError, unsupportedVersionError } from '../src/modern-refusal.js'

const JSON_RPC_2 = new Set([-32700, -32600, -32601, -32602, -32603])
const SPEC_DEFINED = new Map([
  [-32020, 'header mismatch'],
  [-32022, 'unsupported protocol version'],
])

describe('MCP_MODERN_ERRORS', () => {
  it('keeps every code inside -32000…-32019, the JSON-RPC 2.0 codes, or the spec-defined -32020 and -32022', () => {
    const answered = [
      ...Object.values(JSON_RPC_ERRORS),
      ...Object.values(MCP_MODERN_ERRORS),
      QUOTA_ERROR.code,
      MODERN_BATCH_ERROR.code,
      METHOD_NOT_FOUND_ERROR.code,
      UNKNOWN_NAME_ERROR.code,
      headerMismatchError('Mcp-Name', 'mismatch').code,
      unsupportedVersionError(['2026-07-28'], '2027-01-01').code,
    ]
    for (const code of answered) {
      const own = code <= -32000 && code >= -32019
      expect(own || JSON_RPC_2.has(code) || SPEC_DEFINED.has(code), String(code)).toBe(true)
    }
    expect(headerMismatchError('Mcp-Name', 'mismatch').code).toBe(-32020)
    expect(unsupportedVersionError([], 'unrecognized')).toEqual({
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: [], requested: 'unrecognized' },
    })
    // tollgate's own refusal (a code in data.code) uses the implementation-defined range.
    expect(QUOTA_ERROR.code).toBe(-32000)
  })
})
