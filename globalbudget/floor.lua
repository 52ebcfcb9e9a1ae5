-- Raise the global bucket's tat to at least a floor: a pause after a
-- platform's 429 (floor = until + window, paused until), a pull-down to the
-- platform's RateLimit-* view, or a rejoin after degraded mode (charge:
-- units spent locally, added to tat first). The floor is logged so that a
-- later refund's replay respects it.
--
-- KEYS: 1 bucket hash, 2 ops list, 3 flows hash (rejoin: the caller's
--       flows are dropped)
-- ARGV: 1 now, 2 floor, 3 paused until (0: none), 4 charge (µs of
--       refill, 0: none), 5 window, 6 ttl extra, 7 max ops, 8 instance
--       whose flows to drop ('' none)
local now = tonumber(ARGV[1])
local floor = tonumber(ARGV[2])
local pauseUntil = tonumber(ARGV[3])
local charge = tonumber(ARGV[4])
local W = tonumber(ARGV[5])
local function fmt(x) return string.format('%d', x) end
local b = redis.call('HMGET', KEYS[1], 'tat', 'gen', 'seq', 'pu')
local tat = tonumber(b[1]) or now
local gen = b[2] or (fmt(now) .. '-floor')
local seq = tonumber(b[3]) or 0
local pu = tonumber(b[4]) or 0
local target = math.max(tat, now) + charge
if charge == 0 then target = tat end
target = math.max(target, floor)
if target > tat then
  redis.call('RPUSH', KEYS[2], fmt(target) .. ',-1,' .. fmt(tat) .. ',0')
  local n = redis.call('LLEN', KEYS[2])
  if n > tonumber(ARGV[7]) then redis.call('LTRIM', KEYS[2], n - tonumber(ARGV[7]), -1) end
  seq = seq + 1
  tat = target
end
pu = math.max(pu, pauseUntil)
redis.call('HSET', KEYS[1], 'tat', fmt(tat), 'gen', gen, 'seq', fmt(seq), 'pu', fmt(pu))
local ttl = math.ceil((math.max(tat, pu, now) - now + 2 * W + tonumber(ARGV[6])) / 1000)
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
if ARGV[8] ~= '' then
  local raw = redis.call('HGETALL', KEYS[3])
  for i = 1, #raw, 2 do
    local f = cjson.decode(raw[i + 1])
    if f.i == ARGV[8] then redis.call('HDEL', KEYS[3], raw[i]) end
  end
end
return fmt(tat)
