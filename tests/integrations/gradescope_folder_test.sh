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
echo "gradescope folder: passing, failing and malformed submissions graded as specified"
