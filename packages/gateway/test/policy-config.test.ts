import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Ajv2020 } from '../src/ajv-classes.js'
import {
  defaultGatewayConfig,
  GatewayConfigError,
  hashBearerToken,
  loadGatewayConfig,
  parseGatewayConfig,
} from '../src/config.js'

const schemaFile = new URL('../schema/config.schema.json', import.meta.url)
const DIGEST = 'a'.repeat(64)

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-config-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

function issuesOf(value: unknown): { path: string; message: string }[] {
  try {
    parseGatewayConfig(value)
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayConfigError)
    expect((error as GatewayConfigError).code).toBe('ERR_GATEWAY_CONFIG')
    return [...(error as GatewayConfigError).issues]
  }
  return []
}

describe('defaultGatewayConfig', () => {
  it('serves anonymous callers on /mcp with every tool, frozen', () => {
    const config = defaultGatewayConfig()
    expect(config).toEqual({
      credentials: [],
      routes: [
        { path: '/mcp', anonymous: true, principals: undefined, allow: undefined, deny: [] },
      ],
      limits: {},
      tools: {},
    })
    expect(Object.isFrozen(config.routes[0])).toBe(true)
  })
})

describe('loadGatewayConfig', () => {
  it('reads a complete config and fills the route defaults', () => {
    const file = join(dir, 'config.json')
    writeFileSync(
      file,
      JSON.stringify({
        $schema: './node_modules/@tollgate/gateway/schema/config.schema.json',
        credentials: [{ name: 'alice', tokenSha256: DIGEST }],
        routes: [
          { path: '/mcp', principals: ['alice'], deny: ['get-env'] },
          { path: '/public', anonymous: true, allow: ['echo'] },
        ],
        limits: { concurrentPerPrincipal: 4, ratePerMinute: 60, burst: 10 },
        tools: { openTools: ['echo'], allowedExtraKeys: [], maxCompileMs: 500 },
      }),
    )
    const config = loadGatewayConfig(file)
    expect(config.routes).toEqual([
      {
        path: '/mcp',
        anonymous: false,
        principals: ['alice'],
        allow: undefined,
        deny: ['get-env'],
      },
      { path: '/public', anonymous: true, principals: undefined, allow: ['echo'], deny: [] },
    ])
    expect(config.limits).toEqual({ concurrentPerPrincipal: 4, ratePerMinute: 60, burst: 10 })
    expect(config.tools).toEqual({ openTools: ['echo'], allowedExtraKeys: [], maxCompileMs: 500 })
  })

  it('names an unreadable file and a file that is not JSON', () => {
    expect(() => loadGatewayConfig(join(dir, 'absent.json'))).toThrow(GatewayConfigError)
    const file = join(dir, 'bad.json')
    writeFileSync(file, '{"routes": [')
    expect(() => loadGatewayConfig(file)).toThrow(/\(file\): is not JSON/)
  })
})

describe('parseGatewayConfig', () => {
  it('names a misspelt key by its JSON path, at every level', () => {
    expect(issuesOf({ route: [] })).toEqual([{ path: 'route', message: 'is not a known key' }])
    expect(issuesOf({ routes: [{ path: '/mcp', alow: ['x'] }] })).toEqual([
      { path: 'routes[0].alow', message: 'is not a known key' },
    ])
    expect(issuesOf({ limits: { rate: 1 } })[0]?.path).toBe('limits.rate')
  })

  it('names wrong values by path: a token that is not a digest, a limit, a path', () => {
    const issues = issuesOf({
      credentials: [{ name: 'a', tokenSha256: 'secret-token' }],
      routes: [{ path: 'mcp' }],
      limits: { burst: 0 },
    })
    expect(issues.map((i) => i.path).sort()).toEqual([
      'credentials[0].tokenSha256',
      'limits.burst',
      'routes[0].path',
    ])
  })

  it('refuses repeated paths, names and digests, and a principal no credential has', () => {
    const issues = issuesOf({
      credentials: [
        { name: 'a', tokenSha256: DIGEST },
        { name: 'a', tokenSha256: DIGEST },
      ],
      routes: [{ path: '/mcp', principals: ['b'] }, { path: '/mcp' }],
    })
    expect(issues.map((i) => i.path).sort()).toEqual([
      'credentials[1].name',
      'credentials[1].tokenSha256',
      'routes[0].principals[0]',
      'routes[1].path',
    ])
  })

  it('defaults to one /mcp route that admits no anonymous caller', () => {
    expect(parseGatewayConfig({}).routes).toEqual([
      { path: '/mcp', anonymous: false, principals: undefined, allow: undefined, deny: [] },
    ])
  })
})

describe('config.schema.json', () => {
  it('is draft 2020-12 and closes every object it describes', () => {
    const schema = JSON.parse(readFileSync(schemaFile, 'utf8'))
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
    const open: string[] = []
    const walk = (node: unknown, at: string) => {
      if (typeof node !== 'object' || node === null) return
      const s = node as Record<string, unknown>
      if (s.type === 'object' && s.additionalProperties !== false) open.push(at)
      for (const [k, v] of Object.entries(s)) walk(v, `${at}/${k}`)
    }
    walk(schema, '')
    expect(open).toEqual([])
  })

  it('admits a misspelt key once its objects are left open (the control removed)', () => {
    const schema = JSON.parse(readFileSync(schemaFile, 'utf8'), (key, value) =>
      key === 'additionalProperties' ? undefined : value,
    )
    const validate = new Ajv2020({ strict: false }).compile(schema)
    expect(validate({ routes: [{ path: '/mcp', alow: ['x'] }] })).toBe(true)
    expect(issuesOf({ routes: [{ path: '/mcp', alow: ['x'] }] })).toHaveLength(1)
  })
})

describe('hashBearerToken', () => {
  it('is the sha-256 hex of the token (FIPS 180-2 vector "abc")', () => {
    expect(hashBearerToken('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
  })

  it('refuses a token no Authorization header could carry', () => {
    expect(() => hashBearerToken('')).toThrow(TypeError)
    expect(() => hashBearerToken('has space')).toThrow(TypeError)
  })
})
