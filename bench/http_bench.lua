-- wrk script for http_bench.sh. With BENCH_POST set, POSTs the handout solution of
-- consonant-anywhere (or BENCH_BODY when set: e.g. a too-soft key, whose failing grade
-- carries a diagnosis); otherwise plain GETs. done() prints one parseable summary line.
if os.getenv("BENCH_POST") then
  wrk.method = "POST"
  wrk.body = os.getenv("BENCH_BODY") or '{"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]}'
  wrk.headers["Content-Type"] = "application/json"
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT requests_per_s=%.1f p50_ms=%.3f p99_ms=%.3f requests=%d errors=%d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.requests, e.connect + e.read + e.write + e.status + e.timeout))
end
