-- GET load over many paths: one per line in the file named by BENCH_PATHS (else wrk's own URL),
-- each request picking one at random; or, with BENCH_ORDER=walk, never repeating a path within a
-- run: thread t of BENCH_THREADS n takes lines t, t + n, … until the file runs out, then starts
-- over. Prints the summary as one JSON line for bench/wrk.ts.
local paths = {}
local file = os.getenv("BENCH_PATHS")
local walk = os.getenv("BENCH_ORDER") == "walk"
local count = 0
local position, step

function setup(thread)
  count = count + 1
  thread:set("tid", count)
end

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
  if file then
    for line in io.lines(file) do
      if #line > 0 then paths[#paths + 1] = line end
    end
  end
  step = tonumber(os.getenv("BENCH_THREADS"))
  position = tid
end

function request()
  if #paths == 0 then return wrk.format("GET") end
  if not walk then return wrk.format("GET", paths[math.random(#paths)]) end
  local path = paths[position]
  position = position + step
  if position > #paths then position = tid end
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"non2xx":%d,"socketErrors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout))
end
