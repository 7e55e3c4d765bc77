// Type-level: withInputValidation takes either SDK line's transport and gives back one that
// line's `server.connect` accepts (checked by `tsc --noEmit`, which includes the tests); the
// runtime half is the sdk2 wire run.
import type { Transport as V1Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { Transport as V2Transport } from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import { type SchemaRegistry, withInputValidation } from '../src/index.js'

describe('the SDK Transport types', () => {
  it("let withInputValidation wrap either line's transports", () => {
    // Never called: the check is that these compile.
    const wrapBoth = (a: V1Transport, b: V2Transport, registry: SchemaRegistry) => {
      const v1: V1Transport = withInputValidation(a, registry)
      const v2: V2Transport = withInputValidation(b, registry)
      return [v1, v2]
    }
    expect(wrapBoth).toBeTypeOf('function')
  })
})
