#!/usr/bin/env bash
# headgrader solve, the whole process on one core (taskset), for every bundled problem and
# every example problem, then previous-letter at longer max_length (the search's scaling with
# the tested set's length) and consonant-anywhere over more groups (with its number of
# tokens told apart). Prints "problem seconds exit" lines; docs/benchmarks.md has the figures.
# Usage: bench/solve_bench.sh [BUILD_DIR]   (default build-ci)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cli="${1:-$repo/build-ci}/cli/headgrader"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run() {  # name file
  local start end code=0
  start=$(date +%s.%N)
  taskset -c 0 "$cli" solve "$2" > /dev/null || code=$?
  end=$(date +%s.%N)
  printf '%-34s %6.3f s  exit %d\n' "$1" "$(echo "$end - $start" | bc)" "$code"
}

for f in "$repo"/problems/*.json "$repo"/problems/examples/*.json; do
  run "$(basename "$f" .json)" "$f"
done

# previous-letter at max_length 4, 6, 8, 10, 12 (every string tested: 2^L+1 - 2 strings).
for L in 4 6 8 10 12; do
  python3 - "$repo/problems/examples/previous-letter.json" "$work/previous-$L.json" "$L" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); L = int(sys.argv[3])
j["id"] = "previous-%d" % L
j["W_P"] = [[0] * L, [0] * L, list(range(1, L + 1)), [i * i for i in range(1, L + 1)]]
j["strings"] = {"max_length": L, "exhaustive_length": L}
j.pop("reference", None)
json.dump(j, open(sys.argv[2], "w"))
PY
  run "previous-letter max_length $L" "$work/previous-$L.json"
done

# consonant-anywhere with 2, 3, 4 groups: the consonants split into classes with their own
# embedding rows (n_e = groups), expected unchanged; every string up to length 6.
for G in 2 3 4; do
  python3 - "$repo/problems/consonant-anywhere.json" "$work/groups-$G.json" "$G" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); G = int(sys.argv[3])
alphabet = j["alphabet"]; consonants = j["classes"]["consonant"]
parts = [consonants[k::G - 1] for k in range(G - 1)]
rows = [[1 if c in "aeiou" else 0 for c in alphabet]]
rows += [[1 if c in part else 0 for c in alphabet] for part in parts]
j["id"] = "groups-%d" % G
j["W_E"] = rows
j["classes"] = {"vowel": "aeiou", "consonant": consonants}
j["classes"].update({"c%d" % k: part for k, part in enumerate(parts)})
j["expected"] = "any(consonant)" + "".join(" + 0 * is(c%d)" % k for k in range(G - 1)) + " > 0 ? [0, 1] : [1, 0]"
j["strings"] = {"max_length": 6, "exhaustive_length": 6}
j.pop("reference", None)
json.dump(j, open(sys.argv[2], "w"))
PY
  run "consonant-anywhere $G groups" "$work/groups-$G.json"
done
