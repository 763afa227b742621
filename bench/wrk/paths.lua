-- GET load over many paths: one per line in the file named by BENCH_PATHS (else wrk's own URL),
-- each request picking one at random. Prints the summary as one JSON line for bench/wrk.ts.
local paths = {}
local file = os.getenv("BENCH_PATHS")

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
  if file then
    for line in io.lines(file) do
      if #line > 0 then paths[#paths + 1] = line end
    end
  end
end

function request()
  if #paths == 0 then return wrk.format("GET") end
  return wrk.format("GET", paths[math.random(#paths)])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"non2xx":%d,"socketErrors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout))
end
