#!/usr/bin/env bash
# Installs what building, running and testing headgrader needs, from Debian 12's packages
# only (no downloads from anywhere else). Idempotent: installs nothing that is already there.
# Usage: scripts/install-deps.sh [run|test]   (run: build and serve; test: also the test tools)
set -euo pipefail
want=(cmake make g++ libboost1.81-dev libeigen3-dev nlohmann-json3-dev libssl-dev libsqlite3-dev libpq-dev pkg-config ca-certificates)
if [[ "${1:-run}" == test ]]; then
  want+=(libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-14-dev clang-format-14 python3 python3-jsonschema curl wrk
    chromium nodejs postgresql sqlite3 python3-jwt python3-cryptography openssl
    prometheus)
  # Debian's npm is a package of its own; a NodeSource nodejs already bundles it (and conflicts).
  command -v npm >/dev/null || want+=(npm)
fi
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
