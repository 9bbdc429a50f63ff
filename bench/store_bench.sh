#!/usr/bin/env bash
# The grade route with the submission record kept (API.md §8) against the same route with
# --store none: bench/http_bench.sh three times, with STORE=none, a SQLite file in a temporary
# folder, and a PostgreSQL database on loopback (scripts/with-postgres.sh starts a throwaway
# server). Prints each run, the ratio of requests/s to the none run, and how many gradings a
# transaction held on average (group commit). Not a test: run it by hand; figures in
# docs/benchmarks-store.md.
#
#   bench/store_bench.sh [path/to/headgrader-server]   (env as bench/http_bench.sh)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
server="${1:-$root/build/server/headgrader-server}"
tmp="$(mktemp -d /tmp/headgrader-store-bench.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp"

one() {  # name, store URL
  echo "== $1"
  STORE="$2" "$here/http_bench.sh" "$server" | tee "$tmp/$1.txt"
  awk '/^store:/ { printf "mean batch: %.1f gradings per transaction\n", $2 / $6 }' "$tmp/$1.txt"
}
# The median of the rounds when there were several (http_bench.sh prints it last), else the run.
rps() {
  { sed -n 's/^median of .* requests_per_s grade=\([0-9.]*\).*/\1/p' "$tmp/$1.txt"
    sed -n 's/^grade .*requests_per_s=\([0-9.]*\).*/\1/p' "$tmp/$1.txt"; } | head -1
}

one none none
one sqlite "sqlite:$tmp/bench.db"
# shellcheck disable=SC2016
"$root/scripts/with-postgres.sh" bash -c '
  psql -q "$HEADGRADER_TEST_POSTGRES" -c "CREATE DATABASE bench" &&
  STORE="${HEADGRADER_TEST_POSTGRES%/*}/bench" "$0/http_bench.sh" "$1"' "$here" "$server" |
  tee "$tmp/postgres.txt"
awk '/^store:/ { printf "mean batch: %.1f gradings per transaction\n", $2 / $6 }' "$tmp/postgres.txt"
for name in sqlite postgres; do
  echo "ratio grade requests/s $name/none: $(awk -v a="$(rps "$name")" -v b="$(rps none)" \
    'BEGIN { printf "%.2f", a / b }')"
done
