# shellcheck shell=bash disable=SC2034 # (the variables are for the scripts that source this)
# What the integration tests share; sourced, not run (bash):
#   tests/integrations/gradescope_folder_test.sh     the Gradescope zip in a folder, no Docker
#   tests/integrations/gradescope_container_test.sh  the same zip in debian:bookworm containers
#   tests/integrations/prairielearn_image_test.sh    the PrairieLearn image, as its grader runs it
# It holds the three submissions they grade, the checks of the results.json each platform
# gets for them, and unpacking the Gradescope zip. (The two in containers share the Docker
# stage's harness too: scripts/lib/docker-stage.sh.)

INTEGRATION_PROBLEM=consonant-anywhere
GRADESCOPE_POINTS=10 # make_zip.sh --points: what the Gradescope checks expect
# The three submissions, graded in this order: the handout's solution to Exercise 2
# (passing); the same head with a key too soft to decide (failing: 123 of the 697 tested
# strings pass, diagnosed key_too_soft); a file cut short (not gradable: bad JSON).
SUBMISSION_NAMES=(passing failing malformed)
declare -A SUBMISSIONS=(
  [passing]='{"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]}'
  [failing]='{"W_q": [[1, 1]], "W_k": [[0, 1]], "W_V": [[1, 0], [0, 1]]}'
  [malformed]='{"W_q": [[1, 1]], "W_k": [[0, 1]]'
)

# unpack_gradescope_zip ZIP DIR: unpacks ZIP into DIR as Gradescope does (unzip, which keeps
# the executable bits make_zip.sh stored; python3's zipfile, restoring them, without unzip),
# then checks that the files Gradescope needs are at the archive's root.
unpack_gradescope_zip() {
  local zip=$1 dir=$2 f
  mkdir -p "$dir"
  if command -v unzip >/dev/null; then
    unzip -q "$zip" -d "$dir"
  else
    /usr/bin/env python3 - "$zip" "$dir" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for info in z.infolist():
        path = z.extract(info, sys.argv[2])
        mode = (info.external_attr >> 16) & 0o777
        if mode:
            os.chmod(path, mode)
PY
  fi
  for f in setup.sh run_autograder headgrader.conf headgrader/CMakeLists.txt \
    "headgrader/problems/$INTEGRATION_PROBLEM.json"; do
    [[ -e "$dir/$f" ]] || { echo "FAIL: the zip has no $f at its root" >&2; return 1; }
  done
  [[ -x "$dir/setup.sh" && -x "$dir/run_autograder" ]] ||
    { echo "FAIL: setup.sh and run_autograder are not executable once unpacked" >&2; return 1; }
}

# check_gradescope_results DIR: DIR/NAME.json is Gradescope's results.json for each of
# SUBMISSION_NAMES, made with --points $GRADESCOPE_POINTS.
check_gradescope_results() {
  /usr/bin/env python3 - "$1" "$GRADESCOPE_POINTS" <<'PY'
import json, sys
work, points = sys.argv[1], float(sys.argv[2])
def load(name):
    with open(f"{work}/{name}.json") as f:
        return json.load(f)
p, f, m = load("passing"), load("failing"), load("malformed")
# Passing: every point, three visible tests each at full marks.
assert p["score"] == points, p["score"]
assert [t["name"].split(":")[0] for t in p["tests"]] == ["examples", "exhaustive", "random"]
assert all(t["status"] == "passed" and t["score"] == t["max_score"] and
           t["visibility"] == "visible" for t in p["tests"])
assert abs(sum(t["max_score"] for t in p["tests"]) - points) < 1e-9
# Failing: 123 of 697 strings pass (the README's example), the soft key diagnosed.
assert abs(f["score"] - points * 123 / 697) < 1e-9, f["score"]
assert all(t["status"] == "failed" for t in f["tests"])
assert "key_too_soft" in f["output"] and "How to read a failure" in f["output"]
assert '"ab":\n  position 1 (a)' in f["tests"][1]["output"], f["tests"][1]["output"]
# Malformed: score 0, no tests, the reason in words.
assert m["score"] == 0 and m["tests"] == []
assert m["output"].startswith("Your submission could not be graded: submission.json: "), m["output"]
PY
}

# check_prairielearn_results DIR: DIR/NAME.json is PrairieLearn's results.json for each of
# SUBMISSION_NAMES, the student's file being submission.json.
check_prairielearn_results() {
  /usr/bin/env python3 - "$1" <<'PY'
import json, sys
work = sys.argv[1]
def load(name):
    with open(f"{work}/{name}.json") as f:
        return json.load(f)
p, f, m = load("passing"), load("failing"), load("malformed")
# Passing: gradable, score 1, three tests at full points (one point a string).
assert p["gradable"] is True and p["score"] == 1, (p["gradable"], p["score"])
assert p["message"] == "Passed: 697 of 697 tested strings pass.", p["message"]
assert [t["name"] for t in p["tests"]] == ["examples", "exhaustive", "random"]
assert all(t["points"] == t["max_points"] > 0 for t in p["tests"])
assert sum(t["max_points"] for t in p["tests"]) == 697
# Failing: gradable, 123 of 697, every test short of its points, the soft key diagnosed.
assert f["gradable"] is True and abs(f["score"] - 123 / 697) < 1e-12, f["score"]
assert f["message"] == "Failed: 123 of 697 tested strings pass.", f["message"]
assert all(t["points"] < t["max_points"] for t in f["tests"])
assert sum(t["points"] for t in f["tests"]) == 123
assert all(t["output"].startswith('The first failing string, "') for t in f["tests"])
assert "key_too_soft" in f["output"] and "How to read a failure" in f["output"]
# Malformed: not gradable (no attempt taken), no score, the reason as its format error.
assert m["gradable"] is False and "score" not in m and m["tests"] == [], m
assert len(m["format_errors"]) == 1 and m["format_errors"][0].startswith("submission.json: ")
assert m["message"] == "Your submission could not be graded: " + m["format_errors"][0]
PY
}
