import { describe, expect, it } from 'vitest'
import { access, peerPrefix } from '../src/access.js'
import { defaultGatewayConfig, hashBearerToken, parseGatewayConfig } from '../src/config.js'
import { limiter } from '../src/limiter.js'

const ALICE = 'alice-token-0123456789'
const BOB = 'bob-token-9876543210'
const config = parseGatewayConfig({
  credentials: [
    { name: 'alice', tokenSha256: hashBearerToken(ALICE) },
    { name: 'bob', tokenSha256: hashBearerToken(BOB) },
  ],
  routes: [
    { path: '/mcp', principals: ['alice'], deny: ['get-env'] },
    { path: '/public', anonymous: true, allow: ['echo', 'get-env'], deny: ['get-env'] },
  ],
})

describe('access', () => {
  it('authenticates a bearer token to its credential, the scheme in any case', () => {
    const a = access(config)
    const alice = a.authenticate(`Bearer ${ALICE}`, '10.0.0.1')
    expect(alice).toMatchObject({ anonymous: false, name: 'alice' })
    expect(a.authenticate(`bearer ${ALICE}`, '10.0.0.2')).toEqual(alice)
    expect(alice?.key).toMatch(/^cred:[0-9a-f]{24}$/)
    expect(alice?.key).not.toContain('alice')
    expect(a.authenticate(`Bearer ${BOB}`, '10.0.0.1')?.key).not.toBe(alice?.key)
  })

  it('refuses a wrong token, another scheme and a malformed header', () => {
    const a = access(config)
    for (const header of [
      `Bearer ${ALICE}x`,
      `Basic ${ALICE}`,
      'Bearer',
      'Bearer a b',
      '',
      `Bearer  ${ALICE}\n`,
    ]) {
      expect(a.authenticate(header, '10.0.0.1')).toBeUndefined()
    }
  })

  it('keys anonymous callers per peer: IPv4 by address, IPv6 by /64, never one shared key', () => {
    const a = access(defaultGatewayConfig())
    const key = (peer: string) => a.authenticate(undefined, peer)?.key
    expect(key('10.0.0.1')).toMatch(/^anon:[0-9a-f]{24}$/)
    expect(key('10.0.0.1')).not.toBe(key('10.0.0.2'))
    expect(key('::ffff:10.0.0.1')).toBe(key('10.0.0.1'))
    expect(key('2001:db8:1:2::1')).toBe(key('2001:db8:1:2:ffff:ffff:ffff:ffff'))
    expect(key('2001:db8:1:2::1')).toBe(key('2001:0db8:0001:0002:0:0:0:9%eth0'))
    expect(key('2001:db8:1:3::1')).not.toBe(key('2001:db8:1:2::1'))
    expect(key('::1')).not.toBe(key('127.0.0.1'))
    expect(key('')).toBeUndefined()
    expect(key('not-an-address')).toBeUndefined()
  })

  it('normalizes every spelling of an IPv6 prefix', () => {
    expect(peerPrefix('2001:DB8:0:0:1::')).toBe('2001:db8:0:0::/64')
    expect(peerPrefix('::')).toBe('0:0:0:0::/64')
    expect(peerPrefix('fe80::1%lo0')).toBe('fe80:0:0:0::/64')
    expect(peerPrefix('::ffff:192.168.1.20')).toBe('192.168.1.20')
  })

  it('gives one peer’s flood its own bucket; with one shared key it denies everyone (control removed)', () => {
    const a = access(defaultGatewayConfig())
    const attacker = a.authenticate(undefined, '203.0.113.9')!
    const victim = a.authenticate(undefined, '198.51.100.7')!
    const perPeer = limiter({ burst: 5, ratePerMinute: 1, now: () => 0 })
    for (let i = 0; i < 10; i++) perPeer.acquire(attacker.key, 'echo')
    expect(perPeer.acquire(victim.key, 'echo').ok).toBe(true)
    const shared = limiter({ burst: 5, ratePerMinute: 1, now: () => 0 })
    for (let i = 0; i < 10; i++) shared.acquire('anon', 'echo')
    expect(shared.acquire('anon', 'echo')).toMatchObject({ ok: false, code: 'ERR_RATE_LIMITED' })
  })

  it('finds routes by exact path only', () => {
    const a = access(config)
    expect(a.route('/mcp')?.path).toBe('/mcp')
    expect(a.route('/mcp/')).toBeUndefined()
    expect(a.route('/MCP')).toBeUndefined()
    expect(a.route('/mcp?x=1')).toBeUndefined()
  })

  it('admits anonymous callers only where the route says so, and credentials it lists', () => {
    const a = access(config)
    const anon = a.authenticate(undefined, '10.0.0.1')!
    const alice = a.authenticate(`Bearer ${ALICE}`, '10.0.0.1')!
    const bob = a.authenticate(`Bearer ${BOB}`, '10.0.0.1')!
    const mcp = a.route('/mcp')!
    const pub = a.route('/public')!
    expect([a.mayUse(anon, mcp), a.mayUse(alice, mcp), a.mayUse(bob, mcp)]).toEqual([
      false,
      true,
      false,
    ])
    expect([a.mayUse(anon, pub), a.mayUse(alice, pub), a.mayUse(bob, pub)]).toEqual([
      true,
      true,
      true,
    ])
  })

  it('lets a principal call a tool only if allowed and not denied (deny wins)', () => {
    const a = access(config)
    const alice = a.authenticate(`Bearer ${ALICE}`, '10.0.0.1')!
    const bob = a.authenticate(`Bearer ${BOB}`, '10.0.0.1')!
    const mcp = a.route('/mcp')!
    const pub = a.route('/public')!
    expect(a.mayCall(alice, mcp, 'echo')).toBe(true)
    expect(a.mayCall(alice, mcp, 'get-env')).toBe(false)
    expect(a.mayCall(bob, mcp, 'echo')).toBe(false)
    expect(a.mayCall(bob, pub, 'echo')).toBe(true)
    expect(a.mayCall(bob, pub, 'get-env')).toBe(false)
    expect(a.mayCall(bob, pub, 'get-sum')).toBe(false)
  })

  it('lets every tool through once the route lists neither allow nor deny (control removed)', () => {
    const open = access(parseGatewayConfig({ routes: [{ path: '/public', anonymous: true }] }))
    const anon = open.authenticate(undefined, '10.0.0.1')!
    expect(open.mayCall(anon, open.route('/public')!, 'get-env')).toBe(true)
  })
})
