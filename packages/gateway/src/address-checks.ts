import { isIP } from 'node:net'

/** True for `localhost`, `127.0.0.0/8` and `::1`. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (isIP(bare) === 4) return bare.startsWith('127.')
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1'
  return false
}

/** Whether `text` is a `redis:` or `rediss:` URL with a host. */
export function isRedisUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== ''
  } catch {
    return false
  }
}
