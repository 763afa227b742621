-- POST /api/apps/:slug/install as a new installer every time: a fresh installationId from a fresh
-- client address (X-Forwarded-For; the bench trusts 127.0.0.1 as a proxy), over the slugs in the
-- file named by BENCH_PATHS. Counts what was sent and the 201s, so the rows can be checked.
local paths = {}
local threads = {}
id, sent, created = 0, 0, 0
local prefix

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
  prefix = string.format("bench-%d-%d", os.time(), tid)
  for line in io.lines(os.getenv("BENCH_PATHS")) do
    if #line > 0 then paths[#paths + 1] = line end
  end
end

function request()
  id = id + 1
  sent = sent + 1
  -- A network of its own per request (an IPv6 /64), so every install counts within its budget.
  local address = string.format("2001:db8:%x:%x::1", tid * 4096 + math.floor(id / 65536), id % 65536)
  local headers = { ["content-type"] = "application/json", ["x-forwarded-for"] = address }
  local body = string.format('{"installationId":"%s-%d"}', prefix, id)
  return wrk.format("POST", paths[math.random(#paths)], headers, body)
end

function response(status, headers, body)
  if status == 201 then created = created + 1 end
end

function done(summary, latency, requests)
  local totalSent, totalCreated = 0, 0
  for _, thread in ipairs(threads) do
    totalSent = totalSent + thread:get("sent")
    totalCreated = totalCreated + thread:get("created")
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"non2xx":%d,"socketErrors":%d,"sent":%d,"created":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout, totalSent, totalCreated))
end
