#!/usr/bin/env bash
# What counting the metrics (GET /metrics, server/http/metrics.h) costs the grade route: two
# builds of headgrader-server, one without the metrics and one with them, alternating within
# each of ROUNDS rounds (a VM whose speed drifts over minutes moves both alike), each run one
# wrk of DURATION, 64 connections, the handout solution to consonant-anywhere
# (bench/http_bench.lua), on STORE (default none: the route and the grading alone, where a
# counter's cost would show most). Prints each run's requests/s, p50, p99 and the server's CPU
# per request, then the medians and with/without of requests/s and of CPU per request
# (docs/benchmarks.md, Metrics). The metrics cannot be switched off: "without" is a build of
# the commit before them. Not a test: run it by hand on a quiet machine.
#
#   bench/metrics_ab.sh WITHOUT=path/to/headgrader-server WITH=path/to/headgrader-server
#   env: ROUNDS (5), DURATION (6s), CONNECTIONS (64), SERVER_THREADS (nproc), STORE (none)
#   e.g. git worktree add /tmp/before METRICS_COMMIT~1 && (build it there) &&
#        bench/metrics_ab.sh /tmp/before/build/server/headgrader-server \
#                            build/server/headgrader-server
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
(($# == 2)) || { echo "usage: $0 WITHOUT-BINARY WITH-BINARY" >&2; exit 2; }
tmp="$(mktemp -d /tmp/headgrader-metrics-ab.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT

run() {  # binary
  (
    # shellcheck source=bench/start_server.sh
    . "$here/start_server.sh"
    start_server "$1" "${SERVER_THREADS:-$(nproc)}"
    before="$(server_ticks)"
    line="$(BENCH_POST=1 wrk -t2 -c"${CONNECTIONS:-64}" -d"${DURATION:-6s}" \
      -s "$here/http_bench.lua" "$url/v1/problems/consonant-anywhere/grade" | grep '^RESULT')"
    after="$(server_ticks)"
    requests="$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$line")"
    echo "$(sed 's/^RESULT //; s/ requests=.*//' <<<"$line")" \
      "server_cpu_us=$(server_cpu_us "$before" "$after" "$requests")"
  ) >"$tmp/run"
  head -1 "$tmp/run"
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" <<<"$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1); $(date -u +%F)"
echo "store: ${STORE:-none}; ${ROUNDS:-5} rounds of ${DURATION:-6s}, ${CONNECTIONS:-64} connections"
declare -a without with
for ((round = 1; round <= ${ROUNDS:-5}; ++round)); do
  # Which goes first alternates too: the second run of a round may find the machine warmer.
  if ((round % 2)); then
    a="$(run "$1")"; b="$(run "$2")"
  else
    b="$(run "$2")"; a="$(run "$1")"
  fi
  echo "round $round without $a"
  echo "round $round with    $b"
  without+=("$a"); with+=("$b")
done
for name in requests_per_s p50_ms p99_ms server_cpu_us; do
  w="$(for line in "${without[@]}"; do field "$name" "$line"; done | median)"
  m="$(for line in "${with[@]}"; do field "$name" "$line"; done | median)"
  echo "median $name without=$w with=$m"
  eval "median_${name}_without=$w median_${name}_with=$m"
done
# "with" as a fraction of "without": throughput, and CPU per request turned into requests per
# CPU second (>= 0.97 is the bar, issue 41).
awk -v w="$median_requests_per_s_without" -v m="$median_requests_per_s_with" \
  -v cw="$median_server_cpu_us_without" -v cm="$median_server_cpu_us_with" \
  'BEGIN { printf "with/without: requests_per_s %.3f, requests per server CPU second %.3f\n", m / w, cw / cm }'
