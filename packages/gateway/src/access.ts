import { createHash, timingSafeEqual } from 'node:crypto'
import { isIP } from 'node:net'
import type { GatewayConfig, GatewayRoute } from './config.js'

/** Who is calling: a credential's holder, or an anonymous peer. */
export interface Principal {
  /**
   * Stable key for limits and audit: a hash (`cred:` or `anon:` then 24 hex digits) of the
   * credential's name or the peer's address prefix, never the token or the address itself.
   */
  readonly key: string
  readonly anonymous: boolean
  /** The credential's name (`undefined` for an anonymous caller). */
  readonly name?: string | undefined
}

/** The access policy of a config: authentication, routes and tool surfaces. */
export interface Access {
  /**
   * The principal of a request: `Authorization: Bearer <token>` that matches a credential; an
   * anonymous principal keyed by the peer address (IPv6 by its /64 prefix, as one host
   * usually holds a whole /64) when there is no `Authorization` header; `undefined` for a
   * header that is malformed or matches no credential, and for a peer address that is not an
   * IP address (no shared key for callers the gateway cannot tell apart).
   */
  authenticate(authorization: string | undefined, peerAddress: string): Principal | undefined
  /** The route mounted at exactly `path` (no query string), or `undefined`. */
  route(path: string): GatewayRoute | undefined
  /** Whether `principal` may use `route` at all (anonymous allowed, or a listed credential). */
  mayUse(principal: Principal, route: GatewayRoute): boolean
  /**
   * Whether `principal` may call `tool` on `route`: it may use the route, the tool is in the
   * route's `allow` list (when it has one) and not in its `deny` list. Anything else is to be
   * answered as an unknown tool.
   */
  mayCall(principal: Principal, route: GatewayRoute, tool: string): boolean
}

interface Surface {
  readonly allow: ReadonlySet<string> | undefined
  readonly deny: ReadonlySet<string>
  readonly principals: ReadonlySet<string> | undefined
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i

/**
 * Builds the access policy of a validated config (from `loadGatewayConfig` or
 * `defaultGatewayConfig`); every lookup table is built now.
 */
export function access(config: GatewayConfig): Access {
  // Keyed by the token's sha-256: finding an entry by the digest leaks, through timing, only
  // bits of a digest, which say nothing usable about any token; the entry is then compared in
  // constant time.
  const credentials = new Map<string, { digest: Buffer; principal: Principal }>()
  for (const c of config.credentials) {
    const principal = Object.freeze({
      key: `cred:${keyHash(`cred\0${c.name}`)}`,
      anonymous: false,
      name: c.name,
    })
    credentials.set(c.tokenSha256, { digest: Buffer.from(c.tokenSha256, 'hex'), principal })
  }
  const routes = new Map<string, GatewayRoute>()
  const surfaces = new WeakMap<GatewayRoute, Surface>()
  for (const route of config.routes) {
    routes.set(route.path, route)
    surfaces.set(route, {
      allow: route.allow === undefined ? undefined : new Set(route.allow),
      deny: new Set(route.deny),
      principals: route.principals === undefined ? undefined : new Set(route.principals),
    })
  }

  const mayUse = (principal: Principal, route: GatewayRoute): boolean => {
    const surface = surfaces.get(route)
    if (surface === undefined) return false
    if (principal.anonymous) return route.anonymous
    return surface.principals === undefined || surface.principals.has(principal.name ?? '')
  }

  return Object.freeze({
    authenticate(authorization: string | undefined, peerAddress: string): Principal | undefined {
      if (authorization === undefined) {
        const prefix = peerPrefix(peerAddress)
        if (prefix === undefined) return undefined
        return { key: `anon:${keyHash(`anon\0${prefix}`)}`, anonymous: true, name: undefined }
      }
      const match = BEARER.exec(authorization)
      if (match === null) return undefined
      const digest = createHash('sha256').update(match[1]!, 'utf8').digest()
      const entry = credentials.get(digest.toString('hex'))
      if (entry === undefined || !timingSafeEqual(entry.digest, digest)) return undefined
      return entry.principal
    },
    route(path: string): GatewayRoute | undefined {
      return routes.get(path)
    },
    mayUse,
    mayCall(principal: Principal, route: GatewayRoute, tool: string): boolean {
      if (!mayUse(principal, route)) return false
      const surface = surfaces.get(route)!
      if (surface.deny.has(tool)) return false
      return surface.allow === undefined || surface.allow.has(tool)
    },
  })
}

function keyHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 24)
}

/**
 * The part of a peer address that names one caller: an IPv4 address whole (an IPv4-mapped
 * IPv6 address as its IPv4 address), an IPv6 address by its first 64 bits, normalized so every
 * spelling of one prefix is one key. `undefined` for anything that is not an IP address.
 */
export function peerPrefix(address: string): string | undefined {
  if (typeof address !== 'string') return undefined
  const bare = address.replace(/%.*$/, '')
  const family = isIP(bare)
  if (family === 4) return bare
  if (family !== 6) return undefined
  const groups = ipv6Groups(bare)
  if (groups === undefined) return undefined
  // ::ffff:a.b.c.d
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi, lo] = [groups[6]!, groups[7]!]
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`
}

function ipv6Groups(address: string): number[] | undefined {
  // A trailing dotted IPv4 part (`::ffff:10.0.0.1`) is two groups written another way.
  const text = address.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_m, a, b, c, d) =>
      `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  )
  const [head, rest] = text.split('::') as [string, string | undefined]
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16))
  const left = parse(head)
  const right = rest === undefined ? [] : parse(rest)
  const missing = 8 - left.length - right.length
  if (missing < 0 || (rest === undefined && missing !== 0)) return undefined
  const groups = [...left, ...new Array<number>(missing).fill(0), ...right]
  return groups.some((g) => Number.isNaN(g)) ? undefined : groups
}
