-- get: ARGV = prefix, id, owner. Another owner's task reads as no task.
local id, owner = ARGV[2], ARGV[3]
local t = task_keys(id)
if redis.call('HGET', t, 'owner') ~= owner then
  return {'notfound'}
end
return record(id)
