// The Redis this suite talks to: CI's shared one, else a private redis-server on a random
// 127.0.0.1 port (@tollgate/test-kit/redis-server).
import { hasRedisServer, startRedis } from '@tollgate/test-kit/redis-server'

/** CI's shared redis-server (`.ci/run` exports it), when set. */
export const sharedRedisUrl = process.env.TOLLGATE_REDIS_URL

/** A Redis to share between instances: CI's, else a private one; `undefined` when neither exists. */
export async function sharedRedis(): Promise<{ url: string; stop(): Promise<void> } | undefined> {
  if (sharedRedisUrl !== undefined) return { url: sharedRedisUrl, stop: async () => {} }
  return hasRedisServer ? startRedis() : undefined
}
