#!/usr/bin/env bash
# The Gradescope folder as Gradescope runs it, without Docker: make_zip.sh makes the zip, it
# is unpacked into AG/source of a folder laid out like /autograder (source/, submission/,
# results/), setup.sh builds headgrader there, and run_autograder grades a passing, a failing
# and a malformed submission, each results.json checked with python3 (the submissions and the
# checks: common.sh, shared with gradescope_container_test.sh, which does the same in
# debian:bookworm containers and replaces this test in scripts/test.sh when Docker runs).
#   tests/integrations/gradescope_folder_test.sh SOURCE_DIR WORK_DIR
# WORK_DIR should be under CCACHE_BASEDIR for the build to reuse the compiler cache.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
src="$(cd "$1" && pwd)"
rm -rf "$2" && mkdir -p "$2"
work="$(cd "$2" && pwd)"
ag="$work/autograder"
mkdir -p "$ag/source" "$ag/submission" "$ag/results"
export AUTOGRADER_ROOT="$ag"
"$src/integrations/gradescope/make_zip.sh" --problem "$INTEGRATION_PROBLEM" \
  --points "$GRADESCOPE_POINTS" --out "$work/autograder.zip"
unpack_gradescope_zip "$work/autograder.zip" "$ag/source"
cp "$ag/source/run_autograder" "$ag/run_autograder" # where Gradescope puts it
(cd "$ag/source" && bash ./setup.sh) >"$work/setup.log" 2>&1 ||
  { cat "$work/setup.log"; echo "FAIL: setup.sh"; exit 1; }

for name in "${SUBMISSION_NAMES[@]}"; do # results into $work/NAME.json
  rm -rf "$ag/submission" "$ag/results" && mkdir -p "$ag/submission" "$ag/results"
  printf '%s' "${SUBMISSIONS[$name]}" >"$ag/submission/submission.json"
  (cd "$ag" && ./run_autograder) || { echo "FAIL: run_autograder exited $? on $name"; exit 1; }
  cp "$ag/results/results.json" "$work/$name.json"
done
check_gradescope_results "$work"

# The same zip made with --variant-secret: only its headgrader.conf, run_autograder and
# variant-secret differ, taken into the built folder (no second build). run_autograder then
# passes the secret and Gradescope's submission_metadata.json; the bundled problem has no
# variants, so the student is graded on it as written and told so; the secret is in no output.
head -c 32 /dev/urandom | base64 >"$work/variant-secret"
"$src/integrations/gradescope/make_zip.sh" --problem "$INTEGRATION_PROBLEM" \
  --points "$GRADESCOPE_POINTS" --variant-secret "$work/variant-secret" \
  --out "$work/autograder-variants.zip" >/dev/null
unpack_gradescope_zip "$work/autograder-variants.zip" "$work/variants-source"
cp "$work/variants-source/"{headgrader.conf,run_autograder,variant-secret} "$ag/source/"
cp "$ag/source/run_autograder" "$ag/run_autograder"
rm -rf "$ag/submission" "$ag/results" && mkdir -p "$ag/submission" "$ag/results"
printf '%s' "${SUBMISSIONS[passing]}" >"$ag/submission/submission.json"
printf '{"users": [{"email": "ada@example.edu", "name": "Ada"}]}' >"$ag/submission_metadata.json"
(cd "$ag" && ./run_autograder) >"$work/variant.out" 2>&1 ||
  { cat "$work/variant.out"; echo "FAIL: run_autograder exited $? with a variant secret"; exit 1; }
/usr/bin/env python3 - "$ag/results/results.json" "$work/variant-secret" "$GRADESCOPE_POINTS" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
secret = open(sys.argv[2]).read().rstrip("\n")
r = json.loads(text)
assert r["score"] == float(sys.argv[3]), r["score"]
assert r["output"].startswith("Your problem: consonant-anywhere, as written."), r["output"]
assert secret not in text
PY
! grep -qF "$(tr -d '\n' <"$work/variant-secret")" "$work/variant.out" ||
  { echo "FAIL: the secret is in run_autograder's output"; exit 1; }
# Without the metadata there is no student: the autograder fails, no results are written.
rm -rf "$ag/results" "$ag/submission_metadata.json" && mkdir -p "$ag/results"
if (cd "$ag" && ./run_autograder) >"$work/variant.out" 2>&1; then
  echo "FAIL: run_autograder graded without submission_metadata.json"; exit 1
fi
if ! grep -q "submission_metadata.json: the file cannot be read" "$work/variant.out" ||
  [[ -e "$ag/results/results.json" ]]; then
  cat "$work/variant.out"; echo "FAIL: no student, yet not refused as expected"; exit 1
fi
echo "gradescope folder: passing, failing and malformed submissions graded as specified;" \
  "with a variant secret the student comes from submission_metadata.json"
