-- take_inbox: ARGV = prefix, id. Hands out the answers that arrived (once each) and
-- whether a cancel was requested. Replies {'inbox', cancel ('1' or ''), answers}.
local id = ARGV[2]
local t, q, k, i = task_keys(id)
local f = redis.call('HMGET', t, 'status', 'cancel')
if not f[1] then
  return {'notfound'}
end
if terminal(f[1]) then
  return {'finished', f[1]}
end
local answers = redis.call('HGETALL', i)
redis.call('DEL', i)
return {'inbox', f[2] or '', answers}
