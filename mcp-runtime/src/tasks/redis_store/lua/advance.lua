-- advance: ARGV = prefix, id, status, payload (the result or error JSON, else ''),
-- '1' if a status message follows else '0', the message, then for input_required the key
-- and request pairs. Refuses to leave a terminal status and to reuse a key.
local id, status, payload = ARGV[2], ARGV[3], ARGV[4]
local t, q, k, i = task_keys(id)
local f = redis.call('HMGET', t, 'status', 'updated', 'ttl', 'owner')
if not f[1] then
  return {'notfound'}
end
if terminal(f[1]) then
  return {'finished', f[1]}
end
if status == 'input_required' then
  for n = 7, #ARGV, 2 do
    -- An answered key holds 'answered', never a digest.
    local before = redis.call('HGET', k, ARGV[n])
    if before and before ~= redis.sha1hex(ARGV[n + 1]) then
      return {'reused', ARGV[n]}
    end
  end
end
local at = next_update(f[2])
redis.call('HSET', t, 'status', status, 'updated', int(at))
if ARGV[5] == '1' then
  redis.call('HSET', t, 'message', ARGV[6])
else
  redis.call('HDEL', t, 'message')
end
redis.call('DEL', q)
if status == 'input_required' then
  for n = 7, #ARGV, 2 do
    redis.call('HSET', q, ARGV[n], ARGV[n + 1])
    redis.call('HSET', k, ARGV[n], redis.sha1hex(ARGV[n + 1]))
  end
  expire_with_task(id)
elseif terminal(status) then
  if status == 'completed' then
    redis.call('HSET', t, 'result', payload)
  elseif status == 'failed' then
    redis.call('HSET', t, 'error', payload)
  end
  -- Read before the keys are set to expire: a ttl of 0 removes them at once.
  local reply = record(id)
  finish(id, f[4], tonumber(f[3]))
  return reply
end
return record(id)
