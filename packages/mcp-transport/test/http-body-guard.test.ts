// The MCP path holds a body control another constructor built, so it checks once, at
// construction, that the control reads what the SDK takes: application/json only, any other
// type refused before a byte is read, an object or array at the top level. Each case here is a
// control that breaks exactly one of those conditions (the default `bodyAdmission()` breaks
// two at once, which hides a missing one).
import { bodyAdmission } from '@tollgate/http-admission'
import { describe, expect, it } from 'vitest'
import { createMcpHttpAdmission, type McpBodyOptions, mcpBodyAdmission } from '../src/index.js'

const REFUSED = new TypeError('body must take application/json only, strict (mcpBodyAdmission())')

describe('createMcpHttpAdmission', () => {
  it.each([
    ['a non-strict control (a bare JSON scalar admitted)', { strict: false }],
    ['a control of another single media type', { types: ['text/plain'] }],
    ['a control that lets other media types pass unread', { otherTypes: 'pass' as const }],
  ])('refuses %s as its body at construction', (_what, change) => {
    const body = bodyAdmission({ types: ['application/json'], ...change })
    expect(() => createMcpHttpAdmission({ body })).toThrow(REFUSED)
  })

  it('takes a control of application/json only, strict, as mcpBodyAdmission() builds', () => {
    const body = bodyAdmission({ types: ['application/json'], maxBytes: 1024 })
    expect(createMcpHttpAdmission({ body }).policy.body).toBe(body)
    const built = mcpBodyAdmission({ maxBytes: 2048 })
    expect(createMcpHttpAdmission({ body: built }).policy.body).toBe(built)
  })
})

describe('createMcpHttpAdmission (held controls)', () => {
  it('refuses a body that is not a control, naming the option and its constructor', () => {
    for (const body of [{}, { policy: {} }, null]) {
      expect(() => createMcpHttpAdmission({ body } as never)).toThrow(
        new TypeError('body must be a control built by mcpBodyAdmission()'),
      )
    }
  })

  it.each([
    ['eras', 'mcpProtocolEras()'],
    ['route', 'mcpRouteHead()'],
    ['callers', 'callerKeys()'],
  ])('refuses %s: null, naming the option and its constructor', (name, builtBy) => {
    expect(() => createMcpHttpAdmission({ [name]: null } as never)).toThrow(
      new TypeError(`${name} must be a control built by ${builtBy}`),
    )
  })
})

describe('mcpBodyAdmission', () => {
  it('refuses an option the MCP path fixes, naming mcpBodyAdmission and the option', () => {
    for (const name of ['types', 'strict', 'limit']) {
      expect(() => mcpBodyAdmission({ [name]: undefined } as McpBodyOptions)).toThrow(
        new TypeError(`mcpBodyAdmission: unknown option ${name}`),
      )
    }
  })
})
