-- renew: ARGV = prefix, runner, lease, then task ids. Extends the lease of each task that
-- `runner` still holds, and its keys' expiry with it. Replies {'renewed', the ids it no
-- longer holds}.
local runner, lease = ARGV[2], tonumber(ARGV[3])
local now = now_ms()
local lost = {}
for n = 4, #ARGV do
  local id = ARGV[n]
  local t = task_keys(id)
  local f = redis.call('HMGET', t, 'status', 'runner', 'ttl', 'owner')
  if not f[1] then
    redis.call('ZREM', leases, id)
  end
  if (not f[1]) or terminal(f[1]) or f[2] ~= runner then
    lost[#lost + 1] = id
  else
    local ttl = tonumber(f[3])
    redis.call('ZADD', leases, int(now + lease), id)
    expire_task(id, lease + ttl)
    count_until(id, f[4], now + lease + ttl)
  end
end
return {'renewed', lost}
