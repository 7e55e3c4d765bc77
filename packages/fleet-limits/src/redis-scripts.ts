// The Lua scripts of the Redis store: one per decision, so each decision is one round trip and
// atomic (Redis runs a script alone: two instances cannot both see the last free place). Time
// comes from Redis (`TIME`), never from an instance, so clocks that disagree cannot stretch a
// lease or refill a bucket early. Every key written gets a `PEXPIRE` no shorter than what it
// holds, so an idle key leaves nothing behind.
//
// Leases: a sorted set per key (and per pool) of lease ids scored by their expiry in ms.
// Buckets: a hash per key (and per pool) with the tokens `t` it held at time `at`.

const CLOCK = `
if redis.replicate_commands then redis.replicate_commands() end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function keep(k, ttl)
  if redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
end
`

/**
 * Sweeps expired leases of the key (KEYS[1]) and, with a pool, of the pool (KEYS[2]); takes
 * lease ARGV[1] when the key holds fewer than ARGV[2] and the pool fewer than ARGV[4] (0: no
 * pool), expiring ARGV[3] ms from now. Answers 0 (taken), 1 (key full) or 2 (pool full).
 */
export const ACQUIRE_SCRIPT = `${CLOCK}
local id, limit, ttl, poolLimit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= limit then return 1 end
if poolLimit > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= poolLimit then return 2 end
  redis.call('ZADD', KEYS[2], now + ttl, id)
  keep(KEYS[2], ttl)
end
redis.call('ZADD', KEYS[1], now + ttl, id)
keep(KEYS[1], ttl)
return 0
`

/**
 * Sets lease ARGV[1] to expire ARGV[2] ms from now in the key (KEYS[1]) and, when ARGV[3] is
 * '1', the pool (KEYS[2]); a lease that had expired is added back. Answers 0.
 */
export const RENEW_SCRIPT = `${CLOCK}
local id, ttl = ARGV[1], tonumber(ARGV[2])
local n = 1
if ARGV[3] == '1' then n = 2 end
for i = 1, n do
  redis.call('ZADD', KEYS[i], now + ttl, id)
  keep(KEYS[i], ttl)
end
return 0
`

/** Removes lease ARGV[1] from the key (KEYS[1]) and, when given, the pool (KEYS[2]). Answers 0. */
export const RELEASE_SCRIPT = `
for i = 1, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
return 0
`

/**
 * Token buckets: refills the key's bucket (KEYS[1]: ARGV[2] per minute, ARGV[3] at most) and,
 * when ARGV[4] > 0, the pool's (KEYS[2]: ARGV[4] per minute, ARGV[5] at most) to now; takes
 * ARGV[1] tokens from both when both hold that many, else from neither. Answers
 * { 0, remaining } or { 1 | 2 (which bucket was short), ms until it holds the cost, -1: never }.
 */
export const TAKE_SCRIPT = `${CLOCK}
local cost = tonumber(ARGV[1])
local function level(k, rate, burst)
  local v = redis.call('HMGET', k, 't', 'at')
  local tokens, at = tonumber(v[1]), tonumber(v[2])
  if tokens == nil or at == nil then return burst end
  local elapsed = now - at
  if elapsed < 0 then elapsed = 0 end
  return math.min(burst, tokens + elapsed * rate / 60000)
end
local function wait(tokens, rate, burst)
  if cost > burst then return -1 end
  return math.ceil((cost - tokens) * 60000 / rate)
end
local function store(k, tokens, rate, burst)
  redis.call('HSET', k, 't', string.format('%.17g', tokens), 'at', now)
  redis.call('PEXPIRE', k, math.ceil((burst - tokens) * 60000 / rate) + 1000)
end
local rate, burst = tonumber(ARGV[2]), tonumber(ARGV[3])
local poolRate, poolBurst = tonumber(ARGV[4]), tonumber(ARGV[5])
local mine = level(KEYS[1], rate, burst)
if mine < cost then return { 1, wait(mine, rate, burst) } end
local least = mine
if poolRate > 0 then
  local theirs = level(KEYS[2], poolRate, poolBurst)
  if theirs < cost then return { 2, wait(theirs, poolRate, poolBurst) } end
  store(KEYS[2], theirs - cost, poolRate, poolBurst)
  if theirs < least then least = theirs end
end
store(KEYS[1], mine - cost, rate, burst)
return { 0, math.floor(least - cost) }
`
