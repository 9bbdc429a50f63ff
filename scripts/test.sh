#!/usr/bin/env bash
# The test command (README quick start; .ci/run calls it): builds with warnings as errors and
# runs every test. Set HEADGRADER_SKIP_DOCKER=1 / HEADGRADER_SKIP_SANITIZE=1 to skip stages
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

if [[ "${HEADGRADER_SKIP_DOCKER:-0}" != 1 ]]; then
  echo "== Docker image: build, run, grade through the published port, SIGTERM"
  docker/test.sh build-ci
fi
