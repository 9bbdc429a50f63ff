#!/usr/bin/env bash
# What grading a student's variant costs the server (issue 39: at most 1.1× grading the base
# problem, server CPU per request, after the variant is cached). One server, started with
# --variant-secret on the bundled problems with consonant-anywhere given `variants`
# (permute_features, permute_outputs, feature_scales [1, 2, 0.5]) and --store none; its grade
# route POSTed, in three arms: the handout's solution without "student" (the problem as
# written: "base"); for STUDENTS students in turn, that solution in each student's coordinates
# with "student" ("variant"); and the solution as written with the same students on a copy of
# the problem without `variants` ("student": what naming a student costs without a variant).
# bench/variant_http_bench.py writes the bodies, each graded once first, so every variant is
# cached and proved to pass. The arms alternate in each of ROUNDS rounds (which goes first
# turns too), each run one wrk of DURATION with 64 connections (bench/variant_http_bench.lua).
# Prints each run's requests/s, p50, p99 and the server's CPU µs a request, then the medians
# and variant ÷ base. Not a test: run it by hand on a quiet machine.
#
#   bench/variant_http_bench.sh [BUILD_DIR]     (default build-ci; the server and the CLI of it)
#   env: ROUNDS (5), DURATION (6s), CONNECTIONS (64), SERVER_THREADS (nproc), STUDENTS (100)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
build="${1:-$repo/build-ci}"
server="$build/server/headgrader-server" cli="$build/cli/headgrader"
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
work="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill -TERM $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
scales='[1, 2, 0.5]'

mkdir "$work/problems"
cp "$repo"/problems/*.json "$work/problems/"
python3 - "$work/problems/consonant-anywhere.json" "$scales" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
json.dump(dict(p, id="consonant-anywhere-plain"),
          open(sys.argv[1].replace(".json", "-plain.json"), "w"), indent=2)
p["variants"] = {"permute_features": True, "permute_outputs": True,
                 "feature_scales": json.loads(sys.argv[2])}
json.dump(p, open(sys.argv[1], "w"), indent=2)
PY
head -c 48 /dev/urandom >"$work/secret"
key="$("$cli" keys add --keys "$work/keys.json" --name bench --role staff)"

"$server" --address 127.0.0.1 --port 0 --threads "${SERVER_THREADS:-$(nproc)}" \
  --problems "$work/problems" --keys "$work/keys.json" --variant-secret "$work/secret" \
  --store none >"$work/out" 2>/dev/null &
pid=$!
for _ in $(seq 200); do grep -q '^listening on' "$work/out" && break; sleep 0.05; done
url="$(sed -n 's/^listening on //p' "$work/out")"
[ -n "$url" ] || { echo "the server did not start" >&2; exit 1; }
python3 "$here/variant_http_bench.py" "$url" "$key" "${STUDENTS:-100}" "$scales" "$work"

server_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
run() {  # BODIES_FILE PATH
  local before after line requests
  before="$(server_ticks)"
  line="$(BODIES="$1" KEY="$key" wrk -t2 -c"${CONNECTIONS:-64}" -d"${DURATION:-6s}" \
    -s "$here/variant_http_bench.lua" "$url$2" |
    grep '^RESULT')"
  after="$(server_ticks)"
  requests="$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$line")"
  grep -q ' errors=0$' <<<"$line" || { echo "errors: $line" >&2; exit 1; }
  echo "$(sed 's/^RESULT //; s/ requests=.*//' <<<"$line")" \
    "server_cpu_us=$(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="$requests" \
      'BEGIN { printf "%.1f", t / hz * 1e6 / n }')"
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" <<<"$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1); $(date -u +%F); load $(cut -d' ' -f1-3 /proc/loadavg)"
# Three arms, their order turned each round: "base", "variant" and, to tell the variant's cost
# from the student's, "student": the same students' bodies as written, on a copy of the problem
# without `variants` (consonant-anywhere-plain).
arms=(base student variant)
declare -A path=([base]=consonant-anywhere [student]=consonant-anywhere-plain
  [variant]=consonant-anywhere)
declare -A results
for ((round = 1; round <= ${ROUNDS:-5}; ++round)); do
  for ((k = 0; k < 3; ++k)); do
    arm="${arms[(k + round - 1) % 3]}"
    line="$(run "$work/$arm.json" "/v1/problems/${path[$arm]}/grade")"
    printf 'round %d %-7s %s\n' "$round" "$arm" "$line"
    results[$arm]+="$line"$'\n'
  done
done
median_of() {  # ARM NAME
  while read -r line; do [ -n "$line" ] && field "$2" "$line"; done <<<"${results[$1]}" | median
}
for name in requests_per_s p50_ms p99_ms server_cpu_us; do
  echo "median $name base=$(median_of base "$name") student=$(median_of student "$name")" \
    "variant=$(median_of variant "$name")"
done
awk -v b="$(median_of base server_cpu_us)" -v s="$(median_of student server_cpu_us)" \
  -v v="$(median_of variant server_cpu_us)" -v rb="$(median_of base requests_per_s)" \
  -v rv="$(median_of variant requests_per_s)" \
  'BEGIN { printf "variant/base: server CPU a request %.3f (goal <= 1.1), requests_per_s %.3f; student/base %.3f, variant/student %.3f\n", v / b, rv / rb, s / b, v / s }'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
