#!/usr/bin/env bash
# The Gradescope autograder in real containers, built and run the way Gradescope does it
# (its autograder specification: the zip unpacked in /autograder/source, setup.sh run once
# as root when the image is built, then one fresh container a submission, in which
# /autograder/run_autograder runs in /autograder and leaves /autograder/results/results.json):
#   tests/integrations/gradescope_container_test.sh
#
# 1. starts a Docker engine and makes debian:bookworm if it is missing
#    (docker/offline-engine.sh: Debian only, as root; no registry is needed, nothing pulled);
# 2. integrations/gradescope/make_zip.sh makes the zip, as for course staff; it is unpacked
#    (common.sh) into the context of a Dockerfile written here: FROM debian:bookworm (a bare
#    Debian: none of the build tools), the files in /autograder/source, run_autograder copied
#    to /autograder/run_autograder, empty submission/ and results/, then setup.sh run as root
#    in /autograder/source: it installs the compiler and libraries with apt-get (the
#    container reaches Debian's mirror) and builds headgrader;
# 3. grades the three submissions of common.sh (passing; failing, the soft key diagnosed; not
#    gradable), each in a fresh container from that image with no network (Gradescope gives
#    one; grading needs none): submission.json copied into /autograder/submission,
#    run_autograder must exit 0, its results.json is copied out and checked as
#    gradescope_folder_test.sh checks it (common.sh).
# Prints the image's size and the time of each part. Every wait has a deadline; containers
# and temporary files are removed on exit, the image kept (HEADGRADER_TEST_GRADESCOPE_IMAGE,
# default headgrader-gradescope:test), so that an unchanged zip reuses the build cache: then
# setup.sh does not run again, and the log says so. HEADGRADER_DOCKER_NO_CACHE=1 builds
# without the cache, as on a fresh machine.
set -euo pipefail

T0=$SECONDS
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$ROOT/tests/integrations/common.sh"
# shellcheck source-path=SCRIPTDIR/../.. source=scripts/lib/docker-stage.sh
. "$ROOT/scripts/lib/docker-stage.sh"
IMAGE=${HEADGRADER_TEST_GRADESCOPE_IMAGE:-headgrader-gradescope:test}
BUILD_FLAGS=()
[ "${HEADGRADER_DOCKER_NO_CACHE:-0}" = 1 ] && BUILD_FLAGS+=(--no-cache)
CONTAINER_PREFIX=headgrader-gradescope-test-$$
begin_test gradescope_container headgrader-gradescope-test

start_docker_engine "$ROOT"

# --- 2. the zip, and the image Gradescope would build from it --------------------------------
"$ROOT/integrations/gradescope/make_zip.sh" --problem "$INTEGRATION_PROBLEM" \
  --points "$GRADESCOPE_POINTS" --out "$TMP/autograder.zip" >/dev/null
unpack_gradescope_zip "$TMP/autograder.zip" "$TMP/context/source" || fail "the zip is wrong"
cat >"$TMP/context/Dockerfile" <<'EOF'
FROM debian:bookworm
COPY source/ /autograder/source/
RUN install -d /autograder/submission /autograder/results \
 && cp /autograder/source/run_autograder /autograder/run_autograder
WORKDIR /autograder/source
RUN bash ./setup.sh
WORKDIR /autograder
CMD ["/autograder/run_autograder"]
EOF
log "building $IMAGE: debian:bookworm, the zip in /autograder/source, setup.sh"
T_BUILD=$SECONDS
timeout 3600 docker build "${BUILD_FLAGS[@]}" -t "$IMAGE" "$TMP/context" >"$TMP/build.log" 2>&1 ||
  { tail -60 "$TMP/build.log" >&2; fail "docker build (setup.sh) failed"; }
T_BUILT=$SECONDS
# On a bare Debian every package is missing: apt-get installed them all (a line of setup.sh;
# BuildKit, if installed, puts its step and time before it).
if grep -q 'installing: cmake make g++ libeigen3-dev nlohmann-json3-dev libssl-dev$' "$TMP/build.log"; then
  log "setup.sh ran as root: apt-get installed the build tools, headgrader built and the" \
    "problems validated, in $((T_BUILT - T_BUILD)) s"
elif grep -A1 'RUN bash ./setup.sh' "$TMP/build.log" | grep -qE 'Using cache|CACHED'; then
  log "setup.sh: cached (the same zip as a build before; HEADGRADER_DOCKER_NO_CACHE=1 reruns it)"
else
  cat "$TMP/build.log" >&2
  fail "setup.sh did not install the build tools with apt-get"
fi
size=$(docker image inspect -f '{{.Size}}' "$IMAGE")
log "image $IMAGE: $(awk -v b="$size" 'BEGIN {printf "%.0f", b / 1e6}') MB"

# --- 3. each submission in a fresh container -------------------------------------------------
mkdir -p "$TMP/results"
for name in "${SUBMISSION_NAMES[@]}"; do
  c=$CONTAINER_PREFIX-$name
  CONTAINERS+=("$c")
  mkdir -p "$TMP/$name"
  printf '%s' "${SUBMISSIONS[$name]}" >"$TMP/$name/submission.json"
  docker create --name "$c" --network none "$IMAGE" >/dev/null
  timeout 60 docker cp "$TMP/$name/." "$c:/autograder/submission" ||
    fail "$name: docker cp into /autograder/submission failed"
  t=$SECONDS
  rc=0
  timeout 120 docker start -a "$c" >"$TMP/$name.stdout" 2>&1 || rc=$?
  ((rc == 0)) || { cat "$TMP/$name.stdout" >&2; fail "$name: run_autograder exited $rc"; }
  timeout 60 docker cp "$c:/autograder/results/results.json" "$TMP/results/$name.json" ||
    fail "$name: no /autograder/results/results.json"
  docker rm -f "$c" >/dev/null
  log "$name: run_autograder exited 0 in $((SECONDS - t)) s, score" \
    "$(/usr/bin/env python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["score"])' \
      "$TMP/results/$name.json")"
done
check_gradescope_results "$TMP/results" || fail "a results.json is not as specified"
log "passing, failing (key_too_soft) and not gradable submissions graded as specified"

T_END=$SECONDS
log "time: image $((T_BUILT - T_BUILD)) s, the three gradings $((T_END - T_BUILT)) s," \
  "total $((T_END - T0)) s"
