#!/usr/bin/env bash
# Quick start: build the server and serve the bundled problems on http://0.0.0.0:8080.
# Extra arguments go to the server (e.g. --port 9000, --problems DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh run
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DHEADGRADER_UNITY=ON >/dev/null
cmake --build build-release -j"$(nproc)" --target headgrader-server headgrader
exec build-release/server/headgrader-server --problems problems "$@"
