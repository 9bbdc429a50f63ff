#!/usr/bin/env bash
# Drives headgrader-server with wrk: POST the handout solution to consonant-anywhere, then GET
# /healthz, each with 64 connections for 10 s; prints requests/s, p50 and p99 of both, the
# server's CPU time per request (server_cpu_us; with STORE=postgresql:… also PostgreSQL's own,
# db_cpu_us) and the ratio grade/healthz. With ROUNDS > 1 the pair is repeated, alternating,
# and the medians are printed last: on a shared machine one round can be off by a third either
# way. WRK_NICE runs wrk at that nice level (0: the same priority as the server), and
# WRK_SCHED=batch as a SCHED_BATCH task (its fair share of the cores, but its wakeups do not
# preempt the server mid-request), to see how much of the latency is the scheduler sharing the
# cores between the load generator and the server (docs/benchmarks.md). Not a test: run it by
# hand on a quiet machine.
#
#   bench/http_bench.sh [path/to/headgrader-server]     (default: build/server/headgrader-server)
#   env: CONNECTIONS (64), DURATION (10s), WRK_THREADS (2), SERVER_THREADS (nproc), ROUNDS (1),
#        BENCH_BODY (the submission POSTed; default the handout solution),
#        WRK_NICE (0), WRK_SCHED (normal; batch), SERVER_LOG (null; pipe: the access log to a
#        pipe another process reads)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
server="${1:-$root/build/server/headgrader-server}"
connections="${CONNECTIONS:-64}"
duration="${DURATION:-10s}"
wrk_threads="${WRK_THREADS:-2}"
server_threads="${SERVER_THREADS:-$(nproc)}"
rounds="${ROUNDS:-1}"
wrk_nice="${WRK_NICE:-0}"
wrk_sched="${WRK_SCHED:-normal}"
case "$wrk_sched" in
  normal) wrk_policy=(chrt --other 0) ;;
  batch) wrk_policy=(chrt --batch 0) ;;
  *) echo "WRK_SCHED must be normal or batch; it is $wrk_sched" >&2; exit 2 ;;
esac

# shellcheck source=bench/start_server.sh
. "$here/start_server.sh"
start_server "$server" "$server_threads"


run() {  # name, path, [BENCH_POST]
  local line before after requests db_before db_after db=""
  before="$(server_ticks)"
  db_before="$(db_ticks)"
  line="$(env ${3:+BENCH_POST=1} "${wrk_policy[@]}" nice -n "$wrk_nice" \
    wrk -t"$wrk_threads" -c"$connections" -d"$duration" -s "$here/http_bench.lua" "$url$2" |
    grep '^RESULT')"
  after="$(server_ticks)"
  db_after="$(db_ticks)"
  requests="$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$line")"
  case "${STORE:-none}" in
    postgresql:*) db=" db_cpu_us=$(server_cpu_us "$db_before" "$db_after" "$requests")" ;;
  esac
  echo "$1 ${line#RESULT } server_cpu_us=$(server_cpu_us "$before" "$after" "$requests")$db"
}

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
echo "server: $server_threads threads, access log to ${SERVER_LOG:-null};" \
  "wrk: $wrk_threads threads, $connections connections, $duration, nice $wrk_nice," \
  "scheduled $wrk_sched"
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" <<<"$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -a grades healths ratios
for ((round = 1; round <= rounds; ++round)); do
  grade="$(run grade /v1/problems/consonant-anywhere/grade post)"
  health="$(run healthz /healthz)"
  echo "$grade"
  echo "$health"
  ratio="$(awk -v g="$(field requests_per_s "$grade")" -v h="$(field requests_per_s "$health")" \
    'BEGIN { printf "%.2f", g / h }')"
  echo "ratio grade/healthz requests/s: $ratio"
  grades+=("$grade"); healths+=("$health"); ratios+=("$ratio")
done
if ((rounds > 1)); then
  for name in requests_per_s p50_ms p99_ms server_cpu_us; do
    g="$(for line in "${grades[@]}"; do field "$name" "$line"; done | median)"
    h="$(for line in "${healths[@]}"; do field "$name" "$line"; done | median)"
    echo "median of $rounds rounds: $name grade=$g healthz=$h"
  done
  echo "median of $rounds rounds: ratio grade/healthz requests/s: $(printf '%s\n' "${ratios[@]}" | median)"
fi
