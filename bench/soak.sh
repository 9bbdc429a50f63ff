#!/usr/bin/env bash
# Soak: drives POST /v1/problems/consonant-anywhere/grade with wrk at 128 connections for 60 s
# on loopback, sampling the server's resident memory (VmRSS of /proc/PID/status) every 5 s.
# Prints the samples, requests, errors (socket errors and non-2xx answers) and RSS after
# warm-up vs at the end; exits 1 on any error or when RSS grew more than 10 % (+ 2 MiB) after
# warm-up.
#
#   bench/soak.sh [path/to/headgrader-server]   (default: build/server/headgrader-server)
#   env: CONNECTIONS (128), DURATION (60), WARMUP (10), SAMPLE (5), WRK_THREADS (2),
#        SERVER_THREADS (nproc)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
server="${1:-$root/build/server/headgrader-server}"
connections="${CONNECTIONS:-128}"
duration="${DURATION:-60}"
warmup="${WARMUP:-10}"
sample="${SAMPLE:-5}"
wrk_threads="${WRK_THREADS:-2}"
server_threads="${SERVER_THREADS:-$(nproc)}"

# shellcheck source=bench/start_server.sh
. "$here/start_server.sh"
start_server "$server" "$server_threads"
result="$(mktemp)"
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$server_out" "$result"' EXIT

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }

echo "server pid $pid: $server_threads threads; wrk: $connections connections, ${duration}s"
echo "RSS before load: $(rss_kib) KiB"
BENCH_POST=1 timeout $((duration + 30)) wrk -t"$wrk_threads" -c"$connections" -d"${duration}s" \
  --timeout 10s -s "$here/http_bench.lua" "$url/v1/problems/consonant-anywhere/grade" \
  >"$result" 2>&1 &
wrk_pid=$!

warm=""
samples=()
start=$(date +%s)
while kill -0 "$wrk_pid" 2>/dev/null; do
  sleep "$sample"
  elapsed=$(($(date +%s) - start))
  rss=$(rss_kib)
  samples+=("${elapsed}s:${rss}")
  if [ -z "$warm" ] && ((elapsed >= warmup)); then warm=$rss; fi
done
wait "$wrk_pid" || true
end=$(rss_kib)

echo "RSS samples (elapsed:KiB): ${samples[*]}"
line="$(grep '^RESULT' "$result" || true)"
[ -n "$line" ] || { cat "$result"; echo "wrk failed" >&2; exit 1; }
echo "${line#RESULT }"
grep -E 'Non-2xx|Socket errors' "$result" || true
errors=$(sed -n 's/.*errors=\([0-9]*\).*/\1/p' <<<"$line")
echo "RSS after ${warmup}s warm-up: ${warm:-?} KiB; at the end: $end KiB; peak: $(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status") KiB"
status=0
if [ "$errors" != 0 ]; then echo "FAIL: $errors errors" >&2; status=1; fi
if [ -n "$warm" ] && ((end > warm + warm / 10 + 2048)); then
  echo "FAIL: RSS grew from $warm KiB to $end KiB after warm-up" >&2
  status=1
fi
[ $status = 0 ] && echo "OK: zero errors, no RSS growth after warm-up"
exit $status
