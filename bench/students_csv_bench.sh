#!/usr/bin/env bash
# GET /v1/students.csv over a record of 100 000 gradings (5 000 students, 20 each, one problem):
# the server started on a store filled by SQL from one real grading, then the CSV fetched 5
# times; prints each time and the median. The goal (issue 40) is under 2 s.
# Usage: bench/students_csv_bench.sh [BUILD_DIR] [postgresql://URL]   (default build-ci; with a
# URL, the same on that PostgreSQL database, which must be empty: scripts/with-postgres.sh
# gives one as $HEADGRADER_TEST_POSTGRES)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$repo/build-ci}"
pg="${2:-}"
server="$build/server/headgrader-server" cli="$build/cli/headgrader"
work="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill -TERM $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
records=100000 students=5000
store="${pg:-sqlite:$work/store.db}"
staff="$("$cli" keys add --keys "$work/keys.json" --name ta --role staff)"

start() {
  "$server" --address 127.0.0.1 --port 0 --problems "$repo/problems" --keys "$work/keys.json" \
    --store "$store" >"$work/out" 2>/dev/null &
  pid=$!
  for _ in $(seq 200); do grep -q '^listening on' "$work/out" && break; sleep 0.05; done
  url="$(sed -n 's/^listening on //p' "$work/out")"
  [ -n "$url" ] || { echo "the server did not start" >&2; exit 1; }
}
stop() { kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }

start
curl -sf -o /dev/null -H "Authorization: Bearer $staff" -H 'Content-Type: application/json' \
  -d '{"W_q": [[1, 1]], "W_k": [[0, 1]], "W_V": [[1, 0], [0, 1]], "student": "s"}' \
  "$url/v1/problems/consonant-anywhere/grade"
stop

# The one record copied: each copy its own id, student and time (ids stay unique: the first
# 12 characters of the original and the copy's number).
copy_sql() {  # SERIES_FROM_CLAUSE N_EXPR
  echo "INSERT INTO submissions (id, time_ms, problem, problem_sha256, student, key_name, body,
    passed, score, tests_total, tests_passed, tests_failed, failing_inputs, answer, regrade_of,
    idem_scope, idem_key, idem_body_sha256, lms_context, lms_resource_link, mistakes)
  SELECT substr(id, 1, 12) || $2, time_ms + n, problem, problem_sha256, 's' || (n % $students),
    key_name, body, passed, score, tests_total, tests_passed, tests_failed, failing_inputs,
    answer, regrade_of, idem_scope, idem_key, idem_body_sha256, lms_context, lms_resource_link,
    mistakes FROM submissions, $1;"
}
if [ -n "$pg" ]; then
  psql -q "$pg" -c "$(copy_sql "generate_series(1, $records - 1) AS c(n)" "lpad(to_hex(n), 16, '0')")"
  psql -q "$pg" -c "ANALYZE submissions"
else
  python3 - "$work/store.db" "$(copy_sql "c" "printf('%016x', n)")" "$records" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < %d) "
           % (int(sys.argv[3]) - 1) + sys.argv[2].rstrip().rstrip(";"))
db.commit()
print("records:", db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0], file=sys.stderr)
PY
fi

start
times=()
for _ in 1 2 3 4 5; do
  t=$(curl -sf -o "$work/students.csv" -w '%{time_total}' -H "Authorization: Bearer $staff" \
    "$url/v1/students.csv")
  times+=("$t")
  echo "students.csv: $t s, $(($(wc -l <"$work/students.csv") - 1)) rows"
done
printf '%s\n' "${times[@]}" | sort -n | sed -n 3p | xargs printf 'median: %s s\n'
