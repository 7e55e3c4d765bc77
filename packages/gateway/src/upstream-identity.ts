import { createHash } from 'node:crypto'

/**
 * The identity sealed `requestState` handles are bound to when the config names none: a
 * digest of the upstream's URL (`--upstream`) or of its command line (the command and every
 * argument, each length-prefixed so `a b` and `"a b"` differ). Two gateways that share sealing
 * keys but front different upstreams thus refuse each other's handles; instances fronting the
 * same server must spell it the same way (or set `requestState.upstreamId`).
 * @returns `u` and 32 hex digits (a SHA-256 prefix); the command line itself is never shown.
 */
export function upstreamIdentity(
  cli: { readonly command?: readonly string[]; readonly upstream?: string | undefined } = {},
): string {
  const hash = createHash('sha256')
  if (cli.upstream !== undefined) hash.update(`url\u0000${cli.upstream}`, 'utf8')
  else {
    hash.update('command', 'utf8')
    for (const part of cli.command ?? []) hash.update(`\u0000${part.length}:${part}`, 'utf8')
  }
  return `u${hash.digest('hex').slice(0, 32)}`
}
