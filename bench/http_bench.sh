#!/usr/bin/env bash
# Drives headgrader-server with wrk: POST the handout solution to consonant-anywhere, then
# GET /healthz, each with 64 connections for 10 s; prints requests/s, p50 and p99 of both and
# the ratio grade/healthz. Not a test: run it by hand on a quiet machine.
#
#   bench/http_bench.sh [path/to/headgrader-server]     (default: build/server/headgrader-server)
#   env: CONNECTIONS (64), DURATION (10s), WRK_THREADS (2), SERVER_THREADS (nproc)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
server="${1:-$root/build/server/headgrader-server}"
connections="${CONNECTIONS:-64}"
duration="${DURATION:-10s}"
wrk_threads="${WRK_THREADS:-2}"
server_threads="${SERVER_THREADS:-$(nproc)}"

command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
[ -x "$server" ] || { echo "no server binary at $server; build it first" >&2; exit 1; }

out="$(mktemp)"
# The access log goes to /dev/null: the benchmark measures the service, not the terminal.
"$server" --address 127.0.0.1 --port 0 --threads "$server_threads" \
  --problems "$root/problems" >"$out" 2>/dev/null &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$out"' EXIT
for _ in $(seq 100); do grep -q '^listening on' "$out" && break; sleep 0.05; done
url="$(sed -n 's/^listening on //p' "$out")"
[ -n "$url" ] || { echo "the server did not start" >&2; exit 1; }

run() {  # name, path, [BENCH_POST]
  local line
  line="$(env ${3:+BENCH_POST=1} wrk -t"$wrk_threads" -c"$connections" -d"$duration" \
    -s "$here/http_bench.lua" "$url$2" | grep '^RESULT')"
  echo "$1 ${line#RESULT }"
}

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
echo "server: $server_threads threads; wrk: $wrk_threads threads, $connections connections, $duration"
grade="$(run grade /v1/problems/consonant-anywhere/grade post)"
health="$(run healthz /healthz)"
echo "$grade"
echo "$health"
rate() { sed -n 's/.*requests_per_s=\([0-9.]*\).*/\1/p' <<<"$1"; }
awk -v g="$(rate "$grade")" -v h="$(rate "$health")" \
  'BEGIN { printf "ratio grade/healthz requests/s: %.2f\n", g / h }'
