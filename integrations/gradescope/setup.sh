#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image: it installs the
# build tools from the distribution's packages (Gradescope's images are Debian/Ubuntu; only
# what is missing is installed) and builds the `headgrader` command from the sources in the
# zip (headgrader/, made by make_zip.sh). AUTOGRADER_ROOT (default /autograder) lets a test
# lay out the same folders elsewhere (tests/integrations/gradescope_folder_test.sh).
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
source_dir="$root/source"
want=(cmake make g++ libeigen3-dev nlohmann-json3-dev libssl-dev)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# The engine and the CLI's grading commands only: no server, tests or benchmarks
# (HEADGRADER_ENGINE_ONLY), so no Boost; OpenSSL's libcrypto only, for the HMAC a student's
# variant is drawn from (grader/hmac_stream.h).
cmake -S "$source_dir/headgrader" -B "$source_dir/build" -DCMAKE_BUILD_TYPE=Release \
      -DBUILD_TESTING=OFF -DHEADGRADER_ENGINE_ONLY=ON -DHEADGRADER_UNITY=ON \
      -DHEADGRADER_PROBLEMS_DIR="$source_dir/headgrader/problems"
cmake --build "$source_dir/build" -j"${HEADGRADER_JOBS:-2}" --target headgrader
"$source_dir/build/cli/headgrader" validate "$source_dir/headgrader/problems"
