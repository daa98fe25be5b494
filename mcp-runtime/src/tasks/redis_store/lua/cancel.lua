-- cancel: ARGV = prefix, id, owner. Records the request and wakes the runner, unless the
-- task already ended; replies with the task as it is.
local id, owner = ARGV[2], ARGV[3]
local t = task_keys(id)
local f = redis.call('HMGET', t, 'owner', 'status', 'runner')
if f[1] ~= owner then
  return {'notfound'}
end
if not terminal(f[2]) then
  redis.call('HSET', t, 'cancel', '1')
  redis.call('PUBLISH', wake_channel(f[3]), id)
end
return record(id)
