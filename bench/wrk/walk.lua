-- GET load that never repeats a path within a run: each thread walks its own share of the file
-- named by BENCH_PATHS (thread t of BENCH_THREADS n takes lines t, t + n, …), so every request is new until the
-- file runs out, then starts over. Prints the summary as one JSON line for bench/wrk.ts.
local paths = {}
local count = 0
local position, step

function setup(thread)
  count = count + 1
  thread:set("tid", count)
end

function init(args)
  for line in io.lines(os.getenv("BENCH_PATHS")) do
    if #line > 0 then paths[#paths + 1] = line end
  end
  step = tonumber(os.getenv("BENCH_THREADS"))
  position = tid
end

function request()
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
