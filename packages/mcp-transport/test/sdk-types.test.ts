// Type-level: the transport, the decorators and the result budget are assignable to each SDK
// line's `Transport`, so `server.connect(...)` typechecks on 1.32 and on 2.x (checked by
// `tsc --noEmit`, which includes the tests); the runtime half is the sdk2 wire run.
import type { Transport as V1Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { Transport as V2Transport } from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import { BoundedStdioServerTransport, resultBudget, TransportDecorator } from '../src/index.js'

describe('the SDK Transport types', () => {
  it('accept the bounded transport and its decorators on both SDK lines', () => {
    const stdio = new BoundedStdioServerTransport()
    const wrapped = [stdio, new TransportDecorator(stdio), resultBudget(stdio)]
    const v1: V1Transport[] = wrapped
    const v2: V2Transport[] = wrapped
    expect(v1).toHaveLength(3)
    expect(v2).toHaveLength(3)
  })

  it("wrap either line's transports", () => {
    // Never called: the check is that these compile.
    const wrapBoth = (a: V1Transport, b: V2Transport) => {
      const v1: V1Transport = resultBudget(new TransportDecorator(a))
      const v2: V2Transport = resultBudget(new TransportDecorator(b))
      return [v1, v2]
    }
    expect(wrapBoth).toBeTypeOf('function')
  })
})
