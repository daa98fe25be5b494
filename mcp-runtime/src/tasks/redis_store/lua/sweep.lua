-- sweep: ARGV = prefix, error JSON, status message, most leases to look at. Fails the
-- unfinished tasks whose lease ran out and wakes their runners (one that is only cut off
-- learns it lost them). Replies {'swept', leases looked at, ids failed}.
local error_json, message, most = ARGV[2], ARGV[3], tonumber(ARGV[4])
local due = redis.call('ZRANGEBYSCORE', leases, '-inf', int(now_ms()), 'LIMIT', 0, most)
local failed = {}
for _, id in ipairs(due) do
  redis.call('ZREM', leases, id)
  local t = task_keys(id)
  local f = redis.call('HMGET', t, 'status', 'updated', 'ttl', 'owner', 'runner')
  if f[1] and not terminal(f[1]) then
    local at = next_update(f[2])
    redis.call('HSET', t, 'status', 'failed', 'updated', int(at), 'error', error_json,
      'message', message)
    finish(id, f[4], tonumber(f[3]))
    redis.call('PUBLISH', wake_channel(f[5]), id)
    failed[#failed + 1] = id
  end
end
return {'swept', #due, failed}
