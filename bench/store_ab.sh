#!/usr/bin/env bash
# Two or more builds of headgrader-server on the grade route with a SQLite or PostgreSQL store
# (and `--store none` of the first, as the reference), alternating within each of ROUNDS
# rounds, so that a VM whose speed drifts over minutes moves every build alike: how one change
# of the store was measured (docs/benchmarks-store.md). Each run is one wrk of DURATION on a
# fresh store (file or database), 64 connections, the handout solution to consonant-anywhere
# (bench/http_bench.lua); it prints requests/s, p50, p99, the server's CPU per request and the
# mean group-commit batch. Not a test: run it by hand on a quiet machine, and compare rounds,
# not single runs.
#
#   bench/store_ab.sh NAME=path/to/headgrader-server [NAME=path ...]
#   env: ROUNDS (3), DURATION (6s), CONNECTIONS (64), SERVER_THREADS (nproc),
#        AB_STORE (sqlite; postgres: a fresh database a run on the server that
#        scripts/with-postgres.sh started, whose URL is HEADGRADER_TEST_POSTGRES; PostgreSQL's
#        own CPU a request is printed too, db_cpu_us), e.g.
#        AB_STORE=postgres scripts/with-postgres.sh bench/store_ab.sh before=… after=…
#   e.g. git worktree add /tmp/before HEAD~1 && (build it) &&
#        bench/store_ab.sh before=/tmp/before/build/server/headgrader-server \
#                          after=build/server/headgrader-server
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
(($# >= 1)) || { echo "usage: $0 NAME=path/to/headgrader-server ..." >&2; exit 2; }
tmp="$(mktemp -d /tmp/headgrader-store-ab.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT

ab_store="${AB_STORE:-sqlite}"
case "$ab_store" in
  sqlite) ;;
  postgres) [[ -n "${HEADGRADER_TEST_POSTGRES:-}" ]] ||
    { echo "AB_STORE=postgres: run under scripts/with-postgres.sh" >&2; exit 2; } ;;
  *) echo "AB_STORE must be sqlite or postgres; it is $ab_store" >&2; exit 2 ;;
esac
fresh_store() {  # NAME: a new, empty store of the kind measured, NAME unique to the run
  if [[ $ab_store == sqlite ]]; then
    rm -f "$tmp"/s.db*
    echo "sqlite:$tmp/s.db"
  else
    psql -q "$HEADGRADER_TEST_POSTGRES" -c "CREATE DATABASE ab_$$_$1" >&2
    echo "${HEADGRADER_TEST_POSTGRES%/*}/ab_$$_$1"
  fi
}

run() {  # name, binary, store
  # In a subshell: start_server's exit trap stops the server and prints its "store:" line.
  (
    # shellcheck source=bench/start_server.sh
    . "$here/start_server.sh"
    STORE="$3" start_server "$2" "${SERVER_THREADS:-$(nproc)}"
    before="$(server_ticks)"
    db_before="$(db_ticks)"
    line="$(BENCH_POST=1 wrk -t2 -c"${CONNECTIONS:-64}" -d"${DURATION:-6s}" \
      -s "$here/http_bench.lua" "$url/v1/problems/consonant-anywhere/grade" | grep '^RESULT')"
    after="$(server_ticks)"
    db_after="$(db_ticks)"
    requests="$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$line")"
    db=""
    [[ $3 != postgresql:* ]] || db=" db_cpu_us=$(server_cpu_us "$db_before" "$db_after" "$requests")"
    echo "$(sed 's/^RESULT //; s/ requests=.*//' <<<"$line")" \
      "server_cpu_us=$(server_cpu_us "$before" "$after" "$requests")$db"
  ) >"$tmp/run"
  echo "$1 $(head -1 "$tmp/run")" \
    "$(awk '/^store:/ { printf "mean_batch=%.1f", $2 / $6 }' "$tmp/run")"
}

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1); $(date -u +%F)"
first="${1#*=}"
for ((round = 1; round <= ${ROUNDS:-3}; ++round)); do
  echo "== round $round"
  run none "$first" none
  for spec in "$@"; do
    run "${spec%%=*}" "${spec#*=}" "$(fresh_store "${round}_${spec%%=*}")"
  done
done
