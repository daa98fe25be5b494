-- Shared by every script of the Redis task store: the key layout and the bookkeeping that
-- keeps a task's keys, its lease and its place in the limits in step.
-- ARGV[1] is the key prefix, in every script.
local prefix = ARGV[1]
local leases = prefix .. 'leases'
local live = prefix .. 'live'

-- Redis's clock, not the instances': leases and timestamps compare across the fleet.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- A number as Redis should read it: a plain integer, never 1.7e+12.
local function int(n)
  return string.format('%.0f', n)
end

local function task_keys(id)
  local base = prefix .. 'task:' .. id
  return base, base .. ':questions', base .. ':keys', base .. ':inbox'
end

local function owner_set(owner)
  return prefix .. 'owner:' .. redis.sha1hex(owner)
end

local function wake_channel(runner)
  return prefix .. 'wake:' .. runner
end

local function terminal(status)
  return status == 'completed' or status == 'failed' or status == 'cancelled'
end

-- When a change made now to a task last changed at `last` says it happened: never at or
-- before `last`.
local function next_update(last)
  return math.max(now_ms(), tonumber(last) + 1)
end

-- Every key of task `id` that exists expires in `ms` milliseconds.
local function expire_task(id, ms)
  local t, q, k, i = task_keys(id)
  for _, key in ipairs({t, q, k, i}) do
    redis.call('PEXPIRE', key, int(ms))
  end
end

-- Keys of task `id` made since it was given its expiry (its inbox, its questions) expire
-- with it.
local function expire_with_task(id)
  local left = redis.call('PTTL', (task_keys(id)))
  if left > 0 then
    expire_task(id, left)
  end
end

-- Task `id` of `owner` counts against the limits until `at` (Unix milliseconds), when its
-- keys expire.
local function count_until(id, owner, at)
  local set = owner_set(owner)
  redis.call('ZADD', live, int(at), id)
  redis.call('ZADD', set, int(at), id)
  local last = redis.call('ZRANGE', set, -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', set, int(math.ceil(tonumber(last[2]))))
end

-- The end of a task that reached a terminal status: its questions, keys and answers go, its
-- lease too, and the rest is kept `ttl` milliseconds from now (by the clock: its `updated`
-- may run a little ahead).
local function finish(id, owner, ttl)
  local t, q, k, i = task_keys(id)
  redis.call('DEL', q, k, i)
  redis.call('ZREM', leases, id)
  expire_task(id, ttl)
  count_until(id, owner, now_ms() + ttl)
end

local function record(id)
  local t, q = task_keys(id)
  return {'ok', redis.call('HGETALL', t), redis.call('HGETALL', q)}
end

