-- One platform's global budget: register this instance's waiting flows,
-- choose the best waiting flow of all instances by the fair queue's
-- two-level rule, and admit it when it is this instance's and the bucket
-- has room. One script per decision, so the choice and the bucket change
-- together (see docs/fair-queue.md, "Global budget").
--
-- Times are integer microseconds since the Unix epoch (a Lua number holds
-- them exactly; nanoseconds would not fit in 53 bits).
--
-- KEYS: 1 bucket hash (tat, gen, seq, vt, pu), 2 ops list, 3 flows hash,
--       4 clients hash, 5 instances hash (heartbeats)
-- ARGV: 1 now, 2 instance, 3 heartbeat expiry, 4 capacity, 5 window,
--       6 forget, 7 usage key prefix, 8 channel, 9 max ops, 10 ttl extra,
--       11 n upserts, then 5 per upsert (id, client, session, cost, next),
--       then n deletes, then the ids.
local now = tonumber(ARGV[1])
local me = ARGV[2]
local C = tonumber(ARGV[4])
local W = tonumber(ARGV[5])
local forget = tonumber(ARGV[6])
local uprefix = ARGV[7]
local channel = ARGV[8]
local maxOps = tonumber(ARGV[9])
local extra = tonumber(ARGV[10])

local function fmt(x) return string.format('%d', x) end
local function num(x) return string.format('%.17g', x) end
local function costUS(k)
  if k >= C then return W end
  return math.ceil(k / C * W)
end

-- The bucket.
local b = redis.call('HMGET', KEYS[1], 'tat', 'gen', 'seq', 'vt', 'pu')
local tat = tonumber(b[1]) or now
local gen = b[2] or (fmt(now) .. '-' .. me)
local seq = tonumber(b[3]) or 0
local vt = tonumber(b[4]) or 0
local pu = tonumber(b[5]) or 0

-- Heartbeats: this instance is alive until ARGV[3].
redis.call('HSET', KEYS[5], me, ARGV[3])
local hb = {}
local hraw = redis.call('HGETALL', KEYS[5])
for i = 1, #hraw, 2 do
  local exp = tonumber(hraw[i + 1])
  if exp < now then
    redis.call('HDEL', KEYS[5], hraw[i])
  else
    hb[hraw[i]] = true
  end
end

-- Usage (global, per client key, forgotten after forget).
local usage = {}
local function loadUsage(client)
  local u = usage[client]
  if u then return u end
  u = {u = 0, s = {}, st = {}}
  local raw = redis.call('HGETALL', uprefix .. client)
  local t = {}
  for i = 1, #raw, 2 do t[raw[i]] = raw[i + 1] end
  if t.t and now - tonumber(t.t) < forget then u.u = tonumber(t.u) or 0 end
  for k, v in pairs(t) do
    if string.sub(k, 1, 2) == 's:' then
      local name = string.sub(k, 3)
      local last = tonumber(t['t:' .. name])
      if last and now - last < forget then u.s[name] = tonumber(v) end
    end
  end
  usage[client] = u
  return u
end
local function wClient(client)
  if client == 'shared' then return 1 end
  return 1 / (1 + loadUsage(client).u / C)
end
local function wSess(client, sess)
  if client == 'shared' then return 1 end
  return 1 / (1 + (loadUsage(client).s[sess] or 0) / C)
end

-- Clients' scheduling state (virtual tags), loaded as needed.
local clients = {}
local dirtyC = {}
local function loadClient(client)
  local ce = clients[client]
  if ce then return ce end
  local raw = redis.call('HGET', KEYS[4], client)
  if raw then ce = cjson.decode(raw) else ce = {lf = 0, sv = 0, sl = {}} end
  if type(ce.sl) ~= 'table' then ce.sl = {} end
  clients[client] = ce
  return ce
end

-- The waiting flows of every live instance.
local flows = {}
local byClient = {}
local dirtyF = {}
local removedF = {}
local fraw = redis.call('HGETALL', KEYS[3])
for i = 1, #fraw, 2 do
  local f = cjson.decode(fraw[i + 1])
  f.id = fraw[i]
  if hb[f.i] then
    flows[f.id] = f
  else
    removedF[f.id] = true -- its instance stopped beating: it is gone
  end
end
-- Flows per client, kept as flows come and go (O(1) per change).
local counts = {}
for _, f in pairs(flows) do counts[f.c] = (counts[f.c] or 0) + 1 end
local function count(client) return counts[client] or 0 end
local function dec(client) counts[client] = (counts[client] or 1) - 1 end
local function leave(client)
  -- The client has no flow left: its session tags start afresh.
  local ce = loadClient(client)
  ce.t = nil
  ce.sv = 0
  ce.sl = {}
  dirtyC[client] = true
end

-- Deletes and upserts of the caller's flows.
local nup = tonumber(ARGV[11])
local p = 12
local ups = {}
for _ = 1, nup do
  ups[#ups + 1] = {id = ARGV[p], c = ARGV[p + 1], s = ARGV[p + 2], k = tonumber(ARGV[p + 3]), n = tonumber(ARGV[p + 4])}
  p = p + 5
end
local ndel = tonumber(ARGV[p])
p = p + 1
for _ = 1, ndel do
  local id = ARGV[p]
  p = p + 1
  local f = flows[id]
  if f then
    flows[id] = nil
    removedF[id] = true
    dec(f.c)
    if count(f.c) == 0 then leave(f.c) end
  end
end
for _, u in ipairs(ups) do
  local f = flows[u.id]
  if f then
    f.k, f.n = u.k, u.n
    f.fi = f.st + f.k / wSess(f.c, f.s)
  else
    local ce = loadClient(u.c)
    if count(u.c) == 0 then
      -- The client becomes backlogged.
      ce.st = math.max(vt, ce.lf or 0)
      ce.t = now
      ce.sv = 0
      ce.sl = {}
    end
    f = {i = me, c = u.c, s = u.s, k = u.k, n = u.n, t = now}
    f.st = math.max(ce.sv or 0, ce.sl[u.s] or 0)
    f.fi = f.st + f.k / wSess(u.c, u.s)
    f.id = u.id
    flows[u.id] = f
    counts[u.c] = count(u.c) + 1
    removedF[u.id] = nil
    dirtyC[u.c] = true
  end
  dirtyF[u.id] = true
end

-- The choice: per client its head flow (fair choice between its flows,
-- unless a flow has waited a whole window: the oldest), then between
-- clients the least finish tag, unless that makes a waiting client miss
-- its one-call-per-window deadline: then the oldest client.
local function choose()
  local entries = {}
  local per = {}
  for _, f in pairs(flows) do
    local l = per[f.c]
    if not l then l = {}; per[f.c] = l end
    l[#l + 1] = f
  end
  local headSum = 0
  for client, l in pairs(per) do
    local fair, old = nil, nil
    for _, f in ipairs(l) do
      if fair == nil or f.fi < fair.fi or (f.fi == fair.fi and (f.t < fair.t or (f.t == fair.t and f.id < fair.id))) then fair = f end
      if old == nil or f.t < old.t or (f.t == old.t and f.id < old.id) then old = f end
    end
    local head, hfair = fair, true
    if old ~= fair and now - old.t >= W then head, hfair = old, false end
    local ce = loadClient(client)
    if ce.t == nil then ce.t = now; ce.st = math.max(vt, ce.lf or 0); dirtyC[client] = true end
    local e = {c = client, ce = ce, head = head, hfair = hfair, t = ce.t,
      fi = ce.st + head.k / wClient(client), cost = costUS(head.k)}
    headSum = headSum + e.cost
    entries[#entries + 1] = e
  end
  if #entries == 0 then return nil end
  table.sort(entries, function(a, b2)
    if a.t ~= b2.t then return a.t < b2.t end
    return a.c < b2.c
  end)
  local fair = entries[1]
  for _, e in ipairs(entries) do
    if e.fi < fair.fi or (e.fi == fair.fi and (e.t < fair.t or (e.t == fair.t and e.c < fair.c))) then fair = e end
  end
  local oldest = entries[1]
  if fair == oldest then return fair, true end
  -- Does serving fair first still let every other client go by its deadline?
  local t2 = math.max(tat, now) + fair.cost
  local at = math.max(now, t2 - W)
  local rest = headSum - fair.cost
  for _, e in ipairs(entries) do
    if e ~= fair then
      local deadline = e.t + W
      if math.max(at, t2 + rest - W) <= deadline then return fair, true end
      t2 = t2 + e.cost
      rest = rest - e.cost
      at = math.max(at, t2 - W)
      if at > deadline then return oldest, false end
    end
  end
  return fair, true
end

local admitted = {}
local e, fairPick = choose()
if e and e.head.i == me and math.max(now, tat + e.cost - W) <= now then
  local f = e.head
  local ce = e.ce
  local k = math.min(f.k, C)
  -- The bucket, with the change logged for an exact refund.
  redis.call('RPUSH', KEYS[2], fmt(now) .. ',' .. fmt(e.cost) .. ',' .. fmt(tat) .. ',0')
  local n = redis.call('LLEN', KEYS[2])
  if n > maxOps then redis.call('LTRIM', KEYS[2], n - maxOps, -1) end
  local opSeq = seq
  seq = seq + 1
  tat = math.max(tat, now) + e.cost
  -- Usage.
  local used, sused = 0, 0
  if f.c ~= 'shared' then
    local u = loadUsage(f.c)
    u.u = u.u + k
    u.s[f.s] = (u.s[f.s] or 0) + k
    used, sused = u.u, u.s[f.s]
    local uk = uprefix .. f.c
    redis.call('HSET', uk, 'u', num(u.u), 't', fmt(now), 's:' .. f.s, num(u.s[f.s]), 't:' .. f.s, fmt(now))
    redis.call('PEXPIRE', uk, math.ceil(forget / 1000) + 1000)
  end
  -- Within the client.
  if e.hfair then ce.sv = f.fi end
  ce.sl[f.s] = f.fi
  if f.n ~= nil and f.n >= 0 then
    f.k = f.n
    f.n = -1
    f.st = f.fi
    f.fi = f.st + f.k / wSess(f.c, f.s)
    f.t = now
    dirtyF[f.id] = true
  else
    flows[f.id] = nil
    removedF[f.id] = true
    dirtyF[f.id] = nil
    dec(f.c)
  end
  -- Between clients.
  if fairPick then vt = e.fi end
  ce.lf = e.fi
  if count(f.c) > 0 then
    ce.st = ce.lf
    ce.t = now
  else
    ce.t = nil
    ce.sv = 0
    ce.sl = {}
  end
  dirtyC[f.c] = true
  admitted = {f.id, num(k), fmt(opSeq), gen, num(used), num(sused)}
end

-- Write back.
for id, _ in pairs(removedF) do redis.call('HDEL', KEYS[3], id) end
for id, _ in pairs(dirtyF) do
  local f = flows[id]
  if f then
    redis.call('HSET', KEYS[3], id, cjson.encode({i = f.i, c = f.c, s = f.s, k = f.k, n = f.n, t = f.t, st = f.st, fi = f.fi}))
  end
end
local any = next(flows) ~= nil
if not any then
  -- Nobody waits anywhere: virtual time starts afresh.
  redis.call('DEL', KEYS[4])
  vt = 0
else
  -- Clients that have no flow any more (their instance died) leave.
  for client, _ in pairs(clients) do
    if count(client) == 0 and clients[client].t ~= nil then leave(client) end
  end
  for client, _ in pairs(dirtyC) do
    redis.call('HSET', KEYS[4], client, cjson.encode(clients[client]))
  end
end
redis.call('HSET', KEYS[1], 'tat', fmt(tat), 'gen', gen, 'seq', fmt(seq), 'vt', num(vt), 'pu', fmt(pu))
local ttl = math.ceil((math.max(tat, pu, now) - now + 2 * W + extra) / 1000)
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('PEXPIRE', KEYS[4], ttl)
redis.call('PEXPIRE', KEYS[5], ttl)

-- The next best flow and when it can go: its instance is told (a hint;
-- instances also poll).
local best, readyAt = '', ''
local nb = choose()
local bestID = ''
if nb then
  best = nb.head.i
  bestID = nb.head.id
  readyAt = fmt(math.max(now, tat + nb.cost - W))
  if best ~= me then redis.call('PUBLISH', channel, best .. ' ' .. readyAt) end
end
local waiting, mine = 0, 0
for _, f in pairs(flows) do
  waiting = waiting + 1
  if f.i == me then mine = mine + 1 end
end
return {admitted[1] or '', admitted[2] or '', admitted[3] or '', admitted[4] or gen, admitted[5] or '', admitted[6] or '',
  best, bestID, readyAt, fmt(tat), tostring(waiting), tostring(mine)}
