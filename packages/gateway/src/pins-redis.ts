// Pins shared by a fleet, in Redis (`--pins redis:<name>` with `--redis-url`): one hash per name,
// `tollgate:gateway:pins:<name>`, holding `t:<tool name>` → sha-256 hex of the tool's canonical
// JSON (the digests of the pin file) and `@generation`, bumped by every approval. Each decision
// is one Lua script, so it is atomic:
//   - first sight: the first instance to judge pins what its upstream lists; a racing instance
//     reads those pins and judges its own list against them (no second first pin);
//   - approval of every tool replaces the pins at once; approval of named tools sets (or, for a
//     tool no longer listed, removes) only their fields, so two operators approving different
//     tools at once both land, and a name neither listed nor pinned changes nothing.
// Every instance polls `@generation` once a second and judges its tools again when it moved,
// so an approval reaches every instance without a restart or a `list_changed`.
// While Redis cannot answer, a judgment uses the pins this process read last (logged); with
// none read yet it approves nothing (fail closed, `ERR_PINS_STORE`).

import type { RedisLimitClient } from '@tollgate/fleet-limits/redis'
import {
  judgeAgainst,
  PINS_STORE_ERROR,
  type PinJudgment,
  type PinStore,
  PinsFileError,
  pinDigests,
} from './pins.js'
import type { UpstreamTool } from './tool-guard.js'

/** Prefix of the pins' keys, so they share a Redis with anything else. */
export const GATEWAY_PINS_KEY_PREFIX = 'tollgate:gateway:pins:'

/** How often an instance asks whether the pins changed: once a second. */
const WATCH_MS = 1000
/** A Redis command unanswered for this long counts as a failure. */
const COMMAND_TIMEOUT_MS = 2000

const NAME = /^[A-Za-z0-9_.:-]{1,128}$/

// Pins on first sight, or answers the pins there are (HGETALL) without writing.
const JUDGE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HGETALL', KEYS[1]) end
redis.call('HSET', KEYS[1], '@generation', '1')
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 0`

// Replaces every pin with the pairs given.
const APPROVE_ALL = `
local fields = redis.call('HKEYS', KEYS[1])
for _, f in ipairs(fields) do
  if string.sub(f, 1, 2) == 't:' then redis.call('HDEL', KEYS[1], f) end
end
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return redis.call('HINCRBY', KEYS[1], '@generation', 1)`

// Sets each named pin; an empty digest removes it, and must name a pin (else nothing changes
// and the pair's position, negated, is answered).
const APPROVE_NAMED = `
for i = 1, #ARGV, 2 do
  if ARGV[i + 1] == '' and redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then return -(i + 1) / 2 end
end
for i = 1, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i])
  else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return redis.call('HINCRBY', KEYS[1], '@generation', 1)`

/** Options of {@link redisPinStore}. */
export interface RedisPinStoreOptions {
  /** A connected node-redis client (`createClient()` from `redis`), with `disableOfflineQueue`. */
  readonly client: RedisLimitClient
  /** The pins' name (what follows `redis:` in `--pins`): 1–128 of `A-Z a-z 0-9 _ . : -`. */
  readonly name: string
  /** Called when a judgment fell back to the pins read last, because Redis did not answer. */
  readonly onUnavailable?: () => void
}

/** Whether `--pins` names pins in Redis: the name after `redis:`, else `undefined` (a file). */
export function redisPinsName(pins: string | undefined): string | undefined {
  return pins?.startsWith('redis:') === true ? pins.slice('redis:'.length) : undefined
}

/**
 * Pins in Redis, shared by every gateway that names them (see the top of this file).
 * @throws TypeError when `name` is not 1–128 of `A-Z a-z 0-9 _ . : -`, or `client` has no `eval`.
 */
export function redisPinStore(options: RedisPinStoreOptions): PinStore {
  const { client, name, onUnavailable } = options
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new TypeError('redisPinStore: name must be 1–128 of A-Z a-z 0-9 _ . : -')
  }
  if (typeof (client as { eval?: unknown } | null)?.eval !== 'function') {
    throw new TypeError('redisPinStore: client must be a node-redis client (with eval)')
  }
  const key = `${GATEWAY_PINS_KEY_PREFIX}${name}`
  let last: Map<string, string> | undefined
  const run = async (script: string, args: string[]): Promise<unknown> => {
    let timer: NodeJS.Timeout | undefined
    try {
      return await Promise.race([
        Promise.resolve().then(() => client.eval(script, { keys: [key], arguments: args })),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('redis timeout')), COMMAND_TIMEOUT_MS)
        }),
      ])
    } finally {
      clearTimeout(timer)
    }
  }
  const pairs = (digests: ReadonlyMap<string, string>): string[] =>
    [...digests].flatMap(([tool, digest]) => [`t:${tool}`, digest])

  return Object.freeze({
    async judge(tools: readonly UpstreamTool[]): Promise<PinJudgment> {
      const current = pinDigests(tools)
      let reply: unknown
      try {
        reply = await run(JUDGE, pairs(current))
      } catch {
        onUnavailable?.()
        if (last !== undefined) return judgeAgainst(last, tools, current)
        const drifted = [...current.keys()].map((tool) => ({
          name: tool,
          reason: 'changed' as const,
        }))
        return {
          approved: [],
          drifted,
          namesChanged: true,
          firstSight: false,
          error: PINS_STORE_ERROR,
        }
      }
      if (!Array.isArray(reply)) {
        last = current
        const approved = tools.filter((t) => typeof (t as { name?: unknown }).name === 'string')
        return { approved, drifted: [], namesChanged: false, firstSight: true }
      }
      const pinned = new Map<string, string>()
      for (let i = 0; i + 1 < reply.length; i += 2) {
        const field = String(reply[i])
        if (field.startsWith('t:')) pinned.set(field.slice(2), String(reply[i + 1]))
      }
      last = pinned
      return judgeAgainst(pinned, tools, current)
    },
    async approve(tools: readonly UpstreamTool[], names?: readonly string[]): Promise<void> {
      const current = pinDigests(tools)
      let reply: unknown
      try {
        reply =
          names === undefined
            ? await run(APPROVE_ALL, pairs(current))
            : await run(
                APPROVE_NAMED,
                names.flatMap((tool) => [`t:${tool}`, current.get(tool) ?? '']),
              )
      } catch {
        throw new PinsFileError('pins in Redis cannot be written (Redis did not answer)')
      }
      if (typeof reply === 'number' && reply < 0) {
        const missing = names?.[-reply - 1] ?? ''
        throw new PinsFileError(
          `no tool of that name is listed or pinned (${missing.length} chars)`,
        )
      }
    },
    watch(onChange: () => void): () => void {
      let seen: string | undefined
      const timer = setInterval(() => {
        run("return redis.call('HGET', KEYS[1], '@generation')", []).then(
          (generation) => {
            const now = generation === null ? undefined : String(generation)
            if (seen !== undefined && now !== seen) onChange()
            seen = now
          },
          () => {},
        )
      }, WATCH_MS)
      timer.unref()
      return () => clearInterval(timer)
    },
  })
}
