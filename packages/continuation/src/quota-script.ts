// The Lua script the Redis store runs for every write under a per-owner quota. Redis runs a
// script atomically, so two instances minting for the same owner at once cannot both see room
// and together exceed the quota. Per owner it keeps an index: a sorted set of the owner's entry
// keys in write order (score: a per-owner sequence) and a hash of each entry's charged bytes.
// The index keys expire with the owner's longest-lived entry, so an owner that stops writing
// leaves nothing behind. Only the writing owner's index and entries are touched.
//
// KEYS[1] entry key, KEYS[2] owner's order (zset), KEYS[3] owner's sizes (hash)
// ARGV[1] value, ARGV[2] ttl ms, ARGV[3] bytes charged, ARGV[4] max entries (0 = off),
// ARGV[5] max bytes (0 = off). Answers 'OK'.

/** The per-owner write script (see the file comment for its keys and arguments). */
export const OWNER_QUOTA_SCRIPT = `
local key, order, sizes = KEYS[1], KEYS[2], KEYS[3]
local ttl, bytes = tonumber(ARGV[2]), tonumber(ARGV[3])
local maxEntries, maxBytes = tonumber(ARGV[4]), tonumber(ARGV[5])
-- A replaced key is charged once.
redis.call('ZREM', order, key)
redis.call('HDEL', sizes, key)
local count = redis.call('ZCARD', order)
local held = 0
if maxBytes > 0 then
  for _, v in ipairs(redis.call('HVALS', sizes)) do held = held + tonumber(v) end
end
local function over()
  return (maxEntries > 0 and count + 1 > maxEntries) or (maxBytes > 0 and held + bytes > maxBytes)
end
local function forget(m)
  held = held - tonumber(redis.call('HGET', sizes, m) or '0')
  redis.call('ZREM', order, m)
  redis.call('HDEL', sizes, m)
  count = count - 1
end
if over() then
  -- Entries already gone (expired, deleted) must not cost the owner a live one.
  for _, m in ipairs(redis.call('ZRANGE', order, 0, -1)) do
    if redis.call('EXISTS', m) == 0 then forget(m) end
  end
  while over() and count > 0 do
    local m = redis.call('ZRANGE', order, 0, 0)[1]
    redis.call('DEL', m)
    forget(m)
  end
end
local last = redis.call('ZRANGE', order, -1, -1, 'WITHSCORES')[2]
redis.call('SET', key, ARGV[1], 'PX', ttl)
redis.call('ZADD', order, (tonumber(last) or 0) + 1, key)
redis.call('HSET', sizes, key, bytes)
for _, k in ipairs({ order, sizes }) do
  if redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
end
return 'OK'
`

/**
 * The two index keys of `owner` under `prefix` (its write order and its sizes). They cannot be
 * confused with an entry key: the service's entry keys are 64 hex characters.
 */
export function ownerIndexKeys(prefix: string, owner: string): [string, string] {
  const base = `${prefix}owner:${owner}:`
  return [`${base}order`, `${base}bytes`]
}
