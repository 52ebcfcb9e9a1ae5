-- Give an admitted call's units back to the global bucket, exactly: the
-- bucket's logged history since the call is replayed without it, so the
-- bucket ends where it would be had the call never been admitted (never
-- fuller than full, never above a later pause or pull-down), as
-- fairqueue.Budget.Refund does in one process.
--
-- KEYS: 1 bucket hash, 2 ops list, 3 the client's usage hash
-- ARGV: 1 now, 2 gen, 3 op seq, 4 units, 5 admitted at, 6 forget,
--       7 session, 8 "1" when the client's usage counts
-- Returns 1 when refunded, 0 when the call is not in the history (or was
-- refunded already): it then stays counted.
local now = tonumber(ARGV[1])
local b = redis.call('HMGET', KEYS[1], 'gen', 'seq', 'tat')
if b[1] ~= ARGV[2] then return 0 end
local seq = tonumber(b[2]) or 0
local n = redis.call('LLEN', KEYS[2])
local base = seq - n
local idx = tonumber(ARGV[3]) - base
if idx < 0 or idx >= n then return 0 end
local ops = redis.call('LRANGE', KEYS[2], idx, -1)
local function parse(s)
  local at, cost, before, refunded = string.match(s, '^(-?%d+),(-?%d+),(-?%d+),(%d)$')
  return {at = tonumber(at), cost = tonumber(cost), before = tonumber(before), r = refunded == '1'}
end
local function fmt(x) return string.format('%d', x) end
local first = parse(ops[1])
if first.r or first.cost < 0 then return 0 end
first.r = true
redis.call('LSET', KEYS[2], idx, fmt(first.at) .. ',' .. fmt(first.cost) .. ',' .. fmt(first.before) .. ',1')
local tat = first.before
for j = 2, #ops do
  local o = parse(ops[j])
  o.before = tat
  if o.r then
  elseif o.cost < 0 then
    tat = math.max(tat, o.at)
  else
    tat = math.max(tat, o.at) + o.cost
  end
  redis.call('LSET', KEYS[2], idx + j - 1, fmt(o.at) .. ',' .. fmt(o.cost) .. ',' .. fmt(o.before) .. ',' .. (o.r and '1' or '0'))
end
redis.call('HSET', KEYS[1], 'tat', fmt(tat))
-- Usage: taken off again, unless it may have been forgotten since.
local units = tonumber(ARGV[4])
if ARGV[8] == '1' and now - tonumber(ARGV[5]) < tonumber(ARGV[6]) then
  local u = redis.call('HMGET', KEYS[3], 'u', 's:' .. ARGV[7])
  if u[1] then redis.call('HSET', KEYS[3], 'u', string.format('%.17g', math.max(0, tonumber(u[1]) - units))) end
  if u[2] then redis.call('HSET', KEYS[3], 's:' .. ARGV[7], string.format('%.17g', math.max(0, tonumber(u[2]) - units))) end
end
return 1
