#!/usr/bin/env bash
# The Gradescope folder as Gradescope runs it, without Docker: make_zip.sh makes the zip, it
# is unpacked into AG/source of a folder laid out like /autograder (source/, submission/,
# results/), setup.sh builds headgrader there, and run_autograder grades a passing, a failing
# and a malformed submission, each results.json checked with python3.
#   tests/integrations/gradescope_folder_test.sh SOURCE_DIR WORK_DIR
# WORK_DIR should be under CCACHE_BASEDIR for the build to reuse the compiler cache.
set -euo pipefail
src="$(cd "$1" && pwd)"
rm -rf "$2" && mkdir -p "$2"
work="$(cd "$2" && pwd)"
ag="$work/autograder"
mkdir -p "$ag/source" "$ag/submission" "$ag/results"
export AUTOGRADER_ROOT="$ag"
"$src/integrations/gradescope/make_zip.sh" --problem consonant-anywhere --points 10 \
  --out "$work/autograder.zip"
# Unpacked the way Gradescope does (unzip keeps the executable bits when present).
if command -v unzip > /dev/null; then
  unzip -q "$work/autograder.zip" -d "$ag/source"
else
  /usr/bin/env python3 -m zipfile -e "$work/autograder.zip" "$ag/source"
fi
for f in setup.sh run_autograder headgrader.conf headgrader/CMakeLists.txt \
         headgrader/problems/consonant-anywhere.json; do
  [[ -e "$ag/source/$f" ]] || { echo "FAIL: the zip has no $f at its root"; exit 1; }
done
cp "$ag/source/run_autograder" "$ag/run_autograder"  # where Gradescope puts it
chmod +x "$ag/run_autograder"
(cd "$ag/source" && bash ./setup.sh) > "$work/setup.log" 2>&1 \
  || { cat "$work/setup.log"; echo "FAIL: setup.sh"; exit 1; }

grade() {  # grade NAME JSON_TEXT: one submission, results into $work/NAME.json
  rm -rf "$ag/submission" "$ag/results" && mkdir -p "$ag/submission" "$ag/results"
  printf '%s' "$2" > "$ag/submission/submission.json"
  (cd "$ag" && ./run_autograder) || { echo "FAIL: run_autograder exited $? on $1"; exit 1; }
  cp "$ag/results/results.json" "$work/$1.json"
}
grade passing '{"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]}'
grade failing '{"W_q": [[1, 1]], "W_k": [[0, 1]], "W_V": [[1, 0], [0, 1]]}'
grade malformed '{"W_q": [[1, 1]], "W_k": [[0, 1]]'

/usr/bin/env python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def load(name):
    with open(f"{work}/{name}.json") as f:
        return json.load(f)
p, f, m = load("passing"), load("failing"), load("malformed")
# Passing: 10 points of 10, three visible tests each at full marks.
assert p["score"] == 10, p["score"]
assert [t["name"].split(":")[0] for t in p["tests"]] == ["examples", "exhaustive", "random"]
assert all(t["status"] == "passed" and t["score"] == t["max_score"] and
           t["visibility"] == "visible" for t in p["tests"])
assert abs(sum(t["max_score"] for t in p["tests"]) - 10) < 1e-9
# Failing: 123 of 697 strings pass (the README's example), the soft key diagnosed.
assert abs(f["score"] - 10 * 123 / 697) < 1e-9, f["score"]
assert all(t["status"] == "failed" for t in f["tests"])
assert "key_too_soft" in f["output"] and "How to read a failure" in f["output"]
assert '"ab":\n  position 1 (a)' in f["tests"][1]["output"], f["tests"][1]["output"]
# Malformed: score 0, no tests, the reason in words.
assert m["score"] == 0 and m["tests"] == []
assert m["output"].startswith("Your submission could not be graded: submission.json: "), m["output"]
print("gradescope folder: passing, failing and malformed submissions graded as specified")
PY
