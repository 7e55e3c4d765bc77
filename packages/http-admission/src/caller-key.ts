// The key an anonymous caller is counted under: its network address, never a label every
// anonymous caller shares. One caller holding eight slow bodies under a shared key made every
// other anonymous POST answer 503; keyed per address, it holds its own share only.
//
// Two ways the address could mint fresh keys per request are closed here. An IPv6 client picks
// any of the 2^64 addresses of its /64 freely, so IPv6 is keyed by prefix (default /64). A
// forwarded address (`X-Forwarded-For`, `Forwarded`) is written by whoever sent the request, so
// it is read only when the direct peer is a configured proxy, and then the rightmost hop that
// is not a configured proxy is the caller (each trusted proxy appends the address it saw; the
// hops left of that are the caller's own words).
import type { IncomingHttpHeaders } from 'node:http'
import { BlockList, isIP } from 'node:net'
import {
  defineOptions,
  integerOption,
  type OptionsOf,
  oneOfOption,
  option,
  type ResolvedOf,
} from '@tollgate/json-budget'

/**
 * The pool name hosts give callers without a credential (`{ principal: keys.keyOf(req), pool:
 * ANONYMOUS_POOL }`): every anonymous caller together holds one principal's share, each
 * address a member's share of it.
 */
export const ANONYMOUS_POOL = 'anonymous'

/** Most forwarded hops read, from the right: a longer chain is cut there (its caller keyed by the last hop read). */
const MAX_HOPS = 32

function trustedProxyList(value: unknown, name: string): void {
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array of addresses or CIDRs`)
  if (value.length > 1024) throw new TypeError(`${name} may hold at most 1024 entries`)
  for (const entry of value) {
    if (parseCidr(entry) === undefined) {
      throw new TypeError(`${name} must hold IP addresses or CIDRs (e.g. 10.0.0.0/8, fd00::/8)`)
    }
  }
}

/**
 * The options of a caller key control ({@link callerKeys}), declared once: the README's
 * options table is `CALLER_KEY_OPTIONS.markdown()`.
 */
export const CALLER_KEY_OPTIONS = defineOptions('callerKeys', {
  ipv6PrefixBits: option({
    default: 64,
    check: integerOption(),
    ceiling: 128,
    doc: 'an IPv6 caller is keyed by this many leading bits of its address (a client chooses freely inside its /64); at most 128',
  }),
  trustedProxies: option<readonly string[]>({
    default: Object.freeze([]) as readonly string[],
    check: trustedProxyList,
    normalize: (value) => Object.freeze([...value]),
    shown: 'none',
    doc: 'addresses or CIDRs of the reverse proxies in front of the server; only when the direct peer is one is `forwardedHeader` read, and its rightmost hop that is not one is the caller',
  }),
  forwardedHeader: option<'x-forwarded-for' | 'forwarded'>({
    default: 'x-forwarded-for',
    check: oneOfOption(['x-forwarded-for', 'forwarded']),
    doc: 'the header the trusted proxies write (`X-Forwarded-For`, or RFC 7239 `Forwarded` `for=`); the other is never read',
  }),
})

/** Options of {@link callerKeys} (see {@link CALLER_KEY_OPTIONS}); every field optional. */
export type CallerKeyOptions = OptionsOf<typeof CALLER_KEY_OPTIONS.rows>

/** What a caller key control holds once built: every option set, validated and frozen. */
export type CallerKeyPolicy = ResolvedOf<typeof CALLER_KEY_OPTIONS.rows>

/** What {@link CallerKeys.keyOf} reads of a request: an `IncomingMessage` fits. */
export interface CallerRequest {
  readonly socket: { readonly remoteAddress?: string | undefined }
  readonly headers: IncomingHttpHeaders
}

/**
 * A caller key control: built once by {@link callerKeys}, frozen, holding its resolved policy.
 * Hosts hold one and ask it for the key of each anonymous request.
 */
export interface CallerKeys {
  /** The resolved policy (frozen). */
  readonly policy: CallerKeyPolicy
  /**
   * The key of the caller that sent `request`: `ip:<IPv4 address>`, or
   * `ip:<IPv6 prefix>/<ipv6PrefixBits>` (eight hexadecimal groups, the host bits zero; an
   * IPv4-mapped IPv6 peer is keyed as its IPv4 address). The address is the direct peer's,
   * unless the peer is one of `trustedProxies`: then the rightmost hop of `forwardedHeader`
   * that is not a trusted proxy (every hop trusted: the leftmost; a hop that is not an address:
   * the trusted hop that reported it). `ip:unknown` when the socket has no address (closed).
   * At most 48 characters; use it as a quota or share key, never in a response.
   */
  keyOf(request: CallerRequest): string
}

/**
 * Builds a {@link CallerKeys} control from its options, validated here (bad values fail at
 * start-up).
 * @throws TypeError on an unknown option, a prefix outside 1–128, or a trusted proxy that is
 *   not an IP address or CIDR.
 */
export function callerKeys(options?: CallerKeyOptions): CallerKeys {
  const policy = CALLER_KEY_OPTIONS.resolve(options)
  const trusted = new BlockList()
  for (const entry of policy.trustedProxies) {
    const cidr = parseCidr(entry) as Cidr
    trusted.addSubnet(cidr.address, cidr.bits, cidr.family)
  }
  const isTrusted = (address: Address) => trusted.check(address.text, address.family)
  const keyOfAddress = (address: Address) =>
    address.family === 'ipv4'
      ? `ip:${address.text}`
      : `ip:${maskIpv6(address.groups, policy.ipv6PrefixBits)}/${policy.ipv6PrefixBits}`

  return Object.freeze({
    policy,
    keyOf(request: CallerRequest): string {
      const peer = parseAddress(request.socket.remoteAddress)
      if (peer === undefined) return 'ip:unknown'
      if (policy.trustedProxies.length === 0 || !isTrusted(peer)) return keyOfAddress(peer)
      const hops = forwardedHops(request.headers, policy.forwardedHeader)
      let caller = peer
      for (let i = hops.length - 1; i >= 0 && i >= hops.length - MAX_HOPS; i--) {
        const hop = parseAddress(hops[i])
        // Not an address: the trusted hop on its right reported it; key by that hop.
        if (hop === undefined) break
        caller = hop
        if (!isTrusted(hop)) break
      }
      return keyOfAddress(caller)
    },
  })
}

interface Address {
  readonly family: 'ipv4' | 'ipv6'
  /** The canonical text BlockList checks: dotted IPv4, or the IPv6 as given (zone cut). */
  readonly text: string
  /** IPv6 only: the eight 16-bit groups. */
  readonly groups: readonly number[]
}

interface Cidr {
  readonly address: string
  readonly bits: number
  readonly family: 'ipv4' | 'ipv6'
}

function parseCidr(entry: unknown): Cidr | undefined {
  if (typeof entry !== 'string' || entry.length > 64) return undefined
  const slash = entry.indexOf('/')
  const address = parseAddress(slash === -1 ? entry : entry.slice(0, slash))
  if (address === undefined) return undefined
  const max = address.family === 'ipv4' ? 32 : 128
  if (slash === -1) return { address: address.text, bits: max, family: address.family }
  const raw = entry.slice(slash + 1)
  if (!/^\d{1,3}$/.test(raw) || Number(raw) > max) return undefined
  return { address: address.text, bits: Number(raw), family: address.family }
}

/** An IP address from a socket or a forwarded hop (`[v6]:port`, `v4:port` and quotes allowed). */
function parseAddress(raw: string | undefined): Address | undefined {
  if (raw === undefined) return undefined
  let text = raw.trim()
  if (text.length > 64) return undefined
  if (text.startsWith('"') && text.endsWith('"') && text.length >= 2) text = text.slice(1, -1)
  if (text.startsWith('[')) {
    const close = text.indexOf(']')
    if (close === -1) return undefined
    text = text.slice(1, close)
  } else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(text)) {
    text = text.slice(0, text.indexOf(':'))
  }
  const zone = text.indexOf('%')
  if (zone !== -1) text = text.slice(0, zone)
  const family = isIP(text)
  if (family === 4) return { family: 'ipv4', text, groups: [] }
  if (family !== 6) return undefined
  const groups = ipv6Groups(text)
  // ::ffff:a.b.c.d is an IPv4 caller reached over a dual-stack socket.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [a, b] = [groups[6] as number, groups[7] as number]
    return { family: 'ipv4', text: `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`, groups: [] }
  }
  return { family: 'ipv6', text, groups }
}

/** The eight groups of an IPv6 address `isIP` accepted (`::` and an IPv4 tail expanded). */
function ipv6Groups(text: string): number[] {
  const parse = (part: string): number[] => {
    if (part === '') return []
    const out: number[] = []
    for (const piece of part.split(':')) {
      if (piece.includes('.')) {
        const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number]
        out.push((a << 8) | b, (c << 8) | d)
      } else {
        out.push(Number.parseInt(piece, 16))
      }
    }
    return out
  }
  const gap = text.indexOf('::')
  if (gap === -1) return parse(text)
  const head = parse(text.slice(0, gap))
  const tail = parse(text.slice(gap + 2))
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail]
}

function maskIpv6(groups: readonly number[], bits: number): string {
  return groups
    .map((group, i) => {
      const keep = Math.max(0, Math.min(16, bits - i * 16))
      const mask = keep === 0 ? 0 : (0xffff << (16 - keep)) & 0xffff
      return (group & mask).toString(16)
    })
    .join(':')
}

/** The hops of the forwarded header, left to right (several header lines joined by Node). */
function forwardedHops(
  headers: IncomingHttpHeaders,
  header: 'x-forwarded-for' | 'forwarded',
): string[] {
  const raw = headers[header]
  const value = Array.isArray(raw) ? raw.join(',') : raw
  if (typeof value !== 'string' || value.length > 8192) return []
  const elements = value.split(',')
  if (header === 'x-forwarded-for') return elements
  // RFC 7239: each element is `;`-separated pairs; the caller is its `for=` (else no address).
  return elements.map((element) => {
    for (const pair of element.split(';')) {
      const eq = pair.indexOf('=')
      if (eq !== -1 && pair.slice(0, eq).trim().toLowerCase() === 'for') return pair.slice(eq + 1)
    }
    return ''
  })
}
