-- update: ARGV = prefix, id, owner, then key and answer pairs. Takes the answers to
-- outstanding questions, each key once over the task's life, and wakes the runner.
-- Replies {'ok', verdicts}, one verdict per key, in order.
local id, owner = ARGV[2], ARGV[3]
local t, q, k, i = task_keys(id)
local f = redis.call('HMGET', t, 'owner', 'status', 'runner', 'updated')
if f[1] ~= owner then
  return {'notfound'}
end
local verdicts = {}
local accepted = false
for n = 4, #ARGV, 2 do
  local key = ARGV[n]
  local verdict = 'not_outstanding'
  if terminal(f[2]) then
    verdict = 'not_outstanding'
  elseif redis.call('HGET', k, key) == 'answered' then
    verdict = 'answered'
  elseif redis.call('HDEL', q, key) == 1 then
    redis.call('HSET', k, key, 'answered')
    redis.call('HSET', i, key, ARGV[n + 1])
    verdict = 'accepted'
    accepted = true
  end
  verdicts[#verdicts + 1] = verdict
end
if accepted then
  if f[2] == 'input_required' and redis.call('EXISTS', q) == 0 then
    redis.call('HSET', t, 'status', 'working', 'updated', int(next_update(f[4])))
  end
  -- The inbox may be new: it expires with the task.
  expire_with_task(id)
  redis.call('PUBLISH', wake_channel(f[3]), id)
end
return {'ok', verdicts}
