// The Lua script the Redis store runs for every write under a per-owner quota. Redis runs a
// script atomically, so two instances minting for the same owner at once cannot both see room
// and together exceed the quota. Per owner it keeps an index: a sorted set of the owner's entry
// keys in write order (score: a per-owner sequence) and a hash of each entry's charged bytes.
// An owner in a pool (every anonymous caller, one owner per address) is also indexed in its
// pool's index, so the pool as a whole is held to one owner's quota: without it, every new
// address would bring a full quota of its own and together they would fill the Redis memory
// every credential's continuations live in. The index keys expire with their longest-lived
// entry, so an owner that stops writing leaves nothing behind. Only the writing owner's entries
// are ever evicted; a pool full of other members' live entries refuses the write.
//
// KEYS[1] entry key, KEYS[2] owner's order (zset), KEYS[3] owner's sizes (hash), and with a
// pool KEYS[4] the pool's order, KEYS[5] the pool's sizes.
// ARGV[1] value, ARGV[2] ttl ms, ARGV[3] bytes charged, ARGV[4] the owner's max entries,
// ARGV[5] its max bytes, ARGV[6] the pool's max entries, ARGV[7] its max bytes (0 = off).
// Answers 'OK', or 'FULL:<limit>' when the pool's cap could only be met by evicting another
// owner's entries (nothing is written).

/** The per-owner write script (see the file comment for its keys and arguments). */
export const OWNER_QUOTA_SCRIPT = `
local key = KEYS[1]
local ttl, bytes = tonumber(ARGV[2]), tonumber(ARGV[3])
local function index(order, sizes, maxEntries, maxBytes)
  -- A replaced key is charged once.
  redis.call('ZREM', order, key)
  redis.call('HDEL', sizes, key)
  local ix = { order = order, sizes = sizes, maxEntries = maxEntries, maxBytes = maxBytes }
  ix.count = redis.call('ZCARD', order)
  ix.held = 0
  for _, v in ipairs(redis.call('HVALS', sizes)) do ix.held = ix.held + tonumber(v) end
  return ix
end
local function short(ix)
  local e = ix.maxEntries > 0 and ix.count + 1 - ix.maxEntries or 0
  local b = ix.maxBytes > 0 and ix.held + bytes - ix.maxBytes or 0
  return e, b
end
local function over(ix)
  local e, b = short(ix)
  return e > 0 or b > 0
end
local function forget(ix, m)
  if redis.call('ZREM', ix.order, m) == 0 then return end
  ix.held = ix.held - tonumber(redis.call('HGET', ix.sizes, m) or '0')
  redis.call('HDEL', ix.sizes, m)
  ix.count = ix.count - 1
end
-- Entries already gone (expired, deleted) must not cost anyone a live one.
local function prune(ix)
  for _, m in ipairs(redis.call('ZRANGE', ix.order, 0, -1)) do
    if redis.call('EXISTS', m) == 0 then forget(ix, m) end
  end
end
local own = index(KEYS[2], KEYS[3], tonumber(ARGV[4]), tonumber(ARGV[5]))
local pool = nil
if KEYS[4] ~= nil then pool = index(KEYS[4], KEYS[5], tonumber(ARGV[6]), tonumber(ARGV[7])) end
local function evictOldest()
  local m = redis.call('ZRANGE', own.order, 0, 0)[1]
  redis.call('DEL', m)
  forget(own, m)
  if pool ~= nil then forget(pool, m) end
end
if over(own) then
  prune(own)
  while over(own) and own.count > 0 do evictOldest() end
end
if pool ~= nil and over(pool) then
  prune(pool)
  prune(own)
  local e, b = short(pool)
  if e > own.count or b > own.held then
    return 'FULL:' .. (e > 0 and pool.maxEntries or pool.maxBytes)
  end
  while over(pool) and own.count > 0 do evictOldest() end
end
redis.call('SET', key, ARGV[1], 'PX', ttl)
local indexes = { own }
if pool ~= nil then indexes[2] = pool end
for _, ix in ipairs(indexes) do
  local last = redis.call('ZRANGE', ix.order, -1, -1, 'WITHSCORES')[2]
  redis.call('ZADD', ix.order, (tonumber(last) or 0) + 1, key)
  redis.call('HSET', ix.sizes, key, bytes)
  for _, k in ipairs({ ix.order, ix.sizes }) do
    if redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
  end
end
return 'OK'
`

/**
 * The two index keys of `owner` under `prefix` (its write order and its sizes); with a `pool`,
 * the owner's within that pool. They cannot be confused with an entry key: the service's entry
 * keys are 64 hex characters.
 */
export function ownerIndexKeys(prefix: string, owner: string, pool?: string): [string, string] {
  const base =
    pool === undefined ? `${prefix}owner:${owner}:` : `${prefix}pool:${pool}:owner:${owner}:`
  return [`${base}order`, `${base}bytes`]
}

/** The two index keys of `pool` under `prefix` (the write order and sizes of all its owners). */
export function poolIndexKeys(prefix: string, pool: string): [string, string] {
  const base = `${prefix}pool:${pool}:`
  return [`${base}order`, `${base}bytes`]
}
