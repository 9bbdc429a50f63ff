#!/usr/bin/env bash
# The grade route with the submission record kept (API.md §8) against the same route with
# --store none: bench/http_bench.sh with STORE=none, a SQLite file in a temporary folder, and
# a PostgreSQL database on loopback (scripts/with-postgres.sh starts a throwaway server), one
# after the other in each of ROUNDS rounds (default 3). Each round's ratios are taken within
# the round, so that a VM whose speed drifts over minutes (measured: `--store none` from 48 k
# to 37 k requests/s in three consecutive runs) moves both sides of a ratio alike; the
# medians of the rounds' ratios and p99s are printed last, with how many gradings a
# transaction held on average (group commit). Each round starts on an empty SQLite file and
# an empty PostgreSQL database. Not a test: run it by hand; figures in
# docs/benchmarks-store.md.
#
#   bench/store_bench.sh [path/to/headgrader-server]
#   env: ROUNDS (3), and those of bench/http_bench.sh (DURATION, CONNECTIONS, ...)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
server="${1:-$root/build/server/headgrader-server}"
rounds="${ROUNDS:-3}"
tmp="$(mktemp -d /tmp/headgrader-store-bench.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp"

# Inside with-postgres.sh, so that one PostgreSQL server serves every round.
# shellcheck disable=SC2016
"$root/scripts/with-postgres.sh" bash -c '
  set -euo pipefail
  here=$1 server=$2 tmp=$3 rounds=$4
  field() { sed -n "s/^grade .*$1=\([0-9.]*\).*/\1/p" "$2"; }
  for r in $(seq "$rounds"); do
    psql -q "$HEADGRADER_TEST_POSTGRES" -c "CREATE DATABASE bench_$r"
    for name in none sqlite postgres; do
      case $name in
        none) store=none ;;
        sqlite) store="sqlite:$tmp/bench-$r.db" ;;
        postgres) store="${HEADGRADER_TEST_POSTGRES%/*}/bench_$r" ;;
      esac
      echo "== round $r: $name"
      ROUNDS=1 STORE="$store" "$here/http_bench.sh" "$server" | tee "$tmp/$name-$r.txt"
    done
    rm -f "$tmp/bench-$r.db"*
    for name in sqlite postgres; do
      awk -v a="$(field requests_per_s "$tmp/$name-$r.txt")" \
        -v b="$(field requests_per_s "$tmp/none-$r.txt")" -v n="$name" -v r="$r" \
        -v p="$(field p99_ms "$tmp/$name-$r.txt")" \
        "BEGIN { printf \"round %d: %s/none %.2f, p99 %s ms\n\", r, n, a / b, p }" |
        tee -a "$tmp/ratios.txt"
    done
  done
' bash "$here" "$server" "$tmp" "$rounds"

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "== medians of $rounds rounds"
for name in none sqlite postgres; do
  line="$name:"
  for f in requests_per_s p50_ms p99_ms server_cpu_us; do
    line+=" $f=$(cat "$tmp/$name-"*.txt | sed -n "s/^grade .*$f=\([0-9.]*\).*/\1/p" | median)"
  done
  [[ $name != postgres ]] ||
    line+=" db_cpu_us=$(cat "$tmp/$name-"*.txt | sed -n "s/^grade .*db_cpu_us=\([0-9.]*\).*/\1/p" | median)"
  [[ $name == none ]] || line+=" mean_batch=$(cat "$tmp/$name-"*.txt |
    awk '/^store:/ { r += $2; t += $6 } END { printf "%.1f", r / t }')"
  echo "$line"
done
for name in sqlite postgres; do
  echo "ratio grade requests/s $name/none: $(sed -n "s/^round .*: $name\/none \([0-9.]*\),.*/\1/p" \
    "$tmp/ratios.txt" | median) (median of the rounds' ratios)"
done
