-- create: ARGV = prefix, id, owner, ttl, poll interval ('' for none), runner, lease,
-- per-owner limit, total limit. The task is working, leased to `runner`, and its keys
-- expire `ttl` after the lease unless the lease is renewed or the task finishes first.
local id, owner, ttl, poll, runner = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]
local lease, per_owner, total = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local now = now_ms()
local set = owner_set(owner)
redis.call('ZREMRANGEBYSCORE', live, '-inf', int(now))
redis.call('ZREMRANGEBYSCORE', set, '-inf', int(now))
-- The empty owner is everyone unauthenticated: only the total bounds it.
if owner ~= '' and redis.call('ZCARD', set) >= per_owner then
  return {'owner_limit'}
end
if redis.call('ZCARD', live) >= total then
  return {'full'}
end
local t = task_keys(id)
redis.call('HSET', t, 'owner', owner, 'status', 'working', 'created', int(now),
  'updated', int(now), 'ttl', int(ttl), 'runner', runner)
if poll ~= '' then
  redis.call('HSET', t, 'poll', poll)
end
local lease_until = now + lease
redis.call('ZADD', leases, int(lease_until), id)
expire_task(id, lease + ttl)
count_until(id, owner, lease_until + ttl)
return record(id)
