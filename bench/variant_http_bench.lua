-- wrk script for variant_http_bench.sh: POSTs the bodies of the file BODIES (one a line) in
-- turn, each thread from its own place, with "Authorization: Bearer $KEY"; done() prints one
-- parseable summary line, as bench/http_bench.lua's.
local bodies = {}
for line in io.lines(os.getenv("BODIES")) do bodies[#bodies + 1] = line end
local headers = {["Content-Type"] = "application/json",
                 ["Authorization"] = "Bearer " .. os.getenv("KEY")}
local next_body = 1
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("next_body", threads * 7919 % #bodies + 1)
end

function request()
  local body = bodies[next_body]
  next_body = next_body % #bodies + 1
  return wrk.format("POST", nil, headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT requests_per_s=%.1f p50_ms=%.3f p99_ms=%.3f requests=%d errors=%d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.requests, e.connect + e.read + e.write + e.status + e.timeout))
end
