#!/usr/bin/env bash
# The test command (README quick start; .ci/run calls it): builds with warnings as errors and
# runs every test, then again under ASan+UBSan, then each fuzzer for 30 s. Set
# HEADGRADER_SKIP_DOCKER=1 / HEADGRADER_SKIP_SANITIZE=1 / HEADGRADER_SKIP_FUZZ=1 to skip stages
# locally; CI runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
jobs=$(nproc)

echo "== build (warnings are errors) and unit + end-to-end tests"
cmake -S . -B build-ci -DCMAKE_BUILD_TYPE=Release -DHEADGRADER_WERROR=ON >/dev/null
cmake --build build-ci -j"$jobs"
ctest --test-dir build-ci --output-on-failure -j"$jobs" --timeout 600
build-ci/cli/headgrader validate problems

echo "== LTI 1.3 end to end: the real server against a fake platform (tests/lti/platform.py)"
/usr/bin/python3 tests/lti/test_lti_e2e.py build-ci

if [[ "${HEADGRADER_SKIP_DOCKER:-0}" != 1 ]]; then
  echo "== Docker image: build, run, grade through the published port, SIGTERM"
  docker/test.sh build-ci
fi

if [[ "${HEADGRADER_SKIP_SANITIZE:-0}" != 1 ]]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer: build and every test again"
  # The end-to-end tests start build-asan's server binary, so it runs sanitized too.
  cmake -S . -B build-asan -DHEADGRADER_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DHEADGRADER_WERROR=ON >/dev/null
  cmake --build build-asan -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 900
fi

if [[ "${HEADGRADER_SKIP_FUZZ:-0}" != 1 ]]; then
  echo "== libFuzzer: each harness briefly, so that they keep building and running"
  fuzz/run.sh "${HEADGRADER_FUZZ_SECONDS:-30}"
fi
