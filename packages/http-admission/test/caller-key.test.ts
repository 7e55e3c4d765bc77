// The key derivation at its edges, on request-shaped objects (the socket path is shown in
// test/caller-pools.test.ts): address families, IPv6 prefixes, and which forwarded hop is read.
import { describe, expect, it } from 'vitest'
import { CALLER_KEY_OPTIONS, type CallerRequest, callerKeys } from '../src/index.js'

const request = (remoteAddress: string | undefined, headers: CallerRequest['headers'] = {}) => ({
  socket: { remoteAddress },
  headers,
})

describe('callerKeys', () => {
  it('keys an IPv4 peer by its address and an IPv4-mapped IPv6 peer as the same IPv4 caller', () => {
    const keys = callerKeys()
    expect(keys.keyOf(request('203.0.113.7'))).toBe('ip:203.0.113.7')
    expect(keys.keyOf(request('::ffff:203.0.113.7'))).toBe('ip:203.0.113.7')
    expect(keys.keyOf(request(undefined))).toBe('ip:unknown')
  })

  it('keys an IPv6 peer by its /64 by default, and by ipv6PrefixBits when set', () => {
    const keys = callerKeys()
    expect(keys.keyOf(request('2001:db8:1:2:aaaa:bbbb:cccc:dddd'))).toBe(
      'ip:2001:db8:1:2:0:0:0:0/64',
    )
    expect(keys.keyOf(request('2001:db8:1:2::1%eth0'))).toBe('ip:2001:db8:1:2:0:0:0:0/64')
    expect(callerKeys({ ipv6PrefixBits: 56 }).keyOf(request('2001:db8:1:2ff::1'))).toBe(
      'ip:2001:db8:1:200:0:0:0:0/56',
    )
    expect(callerKeys({ ipv6PrefixBits: 128 }).keyOf(request('::1'))).toBe('ip:0:0:0:0:0:0:0:1/128')
  })

  it('never reads a forwarded header from a peer that is not a trusted proxy', () => {
    const forged = { 'x-forwarded-for': '192.0.2.1', forwarded: 'for=192.0.2.2' }
    expect(callerKeys().keyOf(request('203.0.113.7', forged))).toBe('ip:203.0.113.7')
    const keys = callerKeys({ trustedProxies: ['10.0.0.0/8'] })
    expect(keys.keyOf(request('203.0.113.7', forged))).toBe('ip:203.0.113.7')
  })

  it('reads the rightmost hop that is not a trusted proxy when the peer is one', () => {
    const keys = callerKeys({ trustedProxies: ['10.0.0.0/8', 'fd00::/8'] })
    // The leftmost hop is whatever the caller wrote; the proxies appended the rest.
    const chain = { 'x-forwarded-for': '192.0.2.99, 198.51.100.7, 10.1.1.1' }
    expect(keys.keyOf(request('10.0.0.1', chain))).toBe('ip:198.51.100.7')
    expect(keys.keyOf(request('fd00::1', chain))).toBe('ip:198.51.100.7')
    // Every hop trusted: the leftmost.
    expect(keys.keyOf(request('10.0.0.1', { 'x-forwarded-for': '10.2.2.2, 10.3.3.3' }))).toBe(
      'ip:10.2.2.2',
    )
    // No header: the proxy itself.
    expect(keys.keyOf(request('10.0.0.1'))).toBe('ip:10.0.0.1')
    // A hop that is not an address: the trusted hop that reported it.
    expect(keys.keyOf(request('10.0.0.1', { 'x-forwarded-for': 'evil, 10.9.9.9' }))).toBe(
      'ip:10.9.9.9',
    )
  })

  it('reads only the configured header: RFC 7239 Forwarded for= with ports and brackets', () => {
    const keys = callerKeys({ trustedProxies: ['127.0.0.1'], forwardedHeader: 'forwarded' })
    const headers = {
      forwarded: 'for=192.0.2.60;proto=http, for="[2001:db8:cafe::17]:4711";by=127.0.0.1',
      'x-forwarded-for': '192.0.2.1',
    }
    expect(keys.keyOf(request('127.0.0.1', headers))).toBe('ip:2001:db8:cafe:0:0:0:0:0/64')
    const v4 = { forwarded: 'for="198.51.100.7:1234"' }
    expect(keys.keyOf(request('127.0.0.1', v4))).toBe('ip:198.51.100.7')
  })

  it('refuses bad options at construction and freezes the control', () => {
    expect(() => callerKeys({ ipv6PrefixBits: 0 })).toThrow(TypeError)
    expect(() => callerKeys({ ipv6PrefixBits: 129 })).toThrow(TypeError)
    expect(() => callerKeys({ trustedProxies: ['10.0.0.0/33'] })).toThrow(TypeError)
    expect(() => callerKeys({ trustedProxies: ['proxy.internal'] })).toThrow(TypeError)
    expect(() => callerKeys({ trustedProxies: '10.0.0.1' as never })).toThrow(TypeError)
    expect(() => callerKeys({ forwardedHeader: 'x-real-ip' as never })).toThrow(TypeError)
    expect(() => callerKeys({ prefix: 64 } as never)).toThrow(TypeError)
    const keys = callerKeys({ trustedProxies: ['10.0.0.1'] })
    expect(Object.isFrozen(keys)).toBe(true)
    expect(Object.isFrozen(keys.policy.trustedProxies)).toBe(true)
    expect(CALLER_KEY_OPTIONS.defaults).toEqual({
      ipv6PrefixBits: 64,
      trustedProxies: [],
      forwardedHeader: 'x-forwarded-for',
    })
  })
})
