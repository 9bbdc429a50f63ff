#!/usr/bin/env bash
# End-to-end test of the Docker image and compose file:
#   docker/test.sh [BUILD_DIR]        (BUILD_DIR may also come from the environment; default build)
#
# 1. starts a Docker engine and makes the two Debian base images if they are missing
#    (docker/offline-engine.sh: Debian only, as root, no registry needed);
# 2. builds the native server in BUILD_DIR and the image (docker/Dockerfile); checks the
#    image size (< 150 MB), its libraries (ldd) and its CLI on the bundled problems;
# 3. runs the image on a loopback port, waits until healthy, grades the handout's solution to
#    consonant-anywhere and compares the body byte for byte with the native server's answer;
# 4. runs the compose service with a host folder holding the problems plus an extra one,
#    checks that the extra problem is served;
# 5. stops both containers with SIGTERM (`docker stop`) and checks they exit 0.
# Every wait has a deadline; containers, the compose project and temporary files are removed
# on exit, so the script can be run again at once.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
# shellcheck source-path=SCRIPTDIR/.. source=scripts/lib/docker-stage.sh
. "$ROOT/scripts/lib/docker-stage.sh"
BUILD_DIR=${1:-${BUILD_DIR:-build}}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
IMAGE=${HEADGRADER_TEST_IMAGE:-headgrader:test}
MAX_IMAGE_BYTES=$((150 * 1000 * 1000)) # "MB" as docker prints it
PROBLEM=consonant-anywhere
# The handout's solution to Exercise 2 (consonant anywhere).
SUBMISSION='{"W_q":[[1,1]],"W_k":[[0,5]],"W_V":[[1,0],[0,1]]}'

RUN_ID=$$
CONTAINER=headgrader-test-$RUN_ID
PROJECT=headgradertest$RUN_ID
begin_test docker/test headgrader-docker-test
CONTAINERS=("$CONTAINER")

# --- tools and the engine (scripts/lib/docker-stage.sh) --------------------------------------
need_commands curl jq
start_docker_engine "$ROOT"
find_compose

# --- native server, the reference answer -----------------------------------------------------
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  log "configuring a native build in $BUILD_DIR"
  need=()
  for p in cmake make g++ libboost1.81-dev libeigen3-dev nlohmann-json3-dev; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  ((${#need[@]} == 0)) || apt_install "${need[@]}"
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    >"$TMP/native-build.log" 2>&1 || { cat "$TMP/native-build.log" >&2; fail "cmake failed"; }
fi
log "building the native server in $BUILD_DIR"
timeout 1800 cmake --build "$BUILD_DIR" -j2 --target headgrader-server \
  >>"$TMP/native-build.log" 2>&1 || { tail -60 "$TMP/native-build.log" >&2; fail "native build failed"; }
NATIVE_BIN=$(find "$BUILD_DIR" -type f -name headgrader-server -perm -u+x -print -quit)
[ -n "$NATIVE_BIN" ] || fail "no headgrader-server under $BUILD_DIR"
start_native_server "$NATIVE_BIN" "$ROOT"
log "native server $NATIVE_BIN on port $NATIVE_PORT"

# post_grade PORT OUTFILE: POST the submission, write the body, print the status.
post_grade() {
  curl -s --max-time 60 -o "$2" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "$SUBMISSION" "http://127.0.0.1:$1/v1/problems/$PROBLEM/grade"
}
status=$(post_grade "$NATIVE_PORT" "$TMP/native.json") || fail "native server: curl failed"
[ "$status" = 200 ] || { cat "$TMP/native.json" >&2; fail "native server: grade answered $status"; }
stop_native_server

# --- image -----------------------------------------------------------------------------------
log "building $IMAGE"
timeout 3600 docker build -f docker/Dockerfile -t "$IMAGE" . >"$TMP/build.log" 2>&1 ||
  { tail -60 "$TMP/build.log" >&2; fail "docker build failed"; }
size=$(docker image inspect -f '{{.Size}}' "$IMAGE")
log "image $IMAGE: $(awk -v b="$size" 'BEGIN {printf "%.1f", b / 1e6}') MB ($size bytes)"
((size < MAX_IMAGE_BYTES)) || fail "image is $size bytes, over $MAX_IMAGE_BYTES"
docker run --rm --entrypoint ldd "$IMAGE" /usr/local/bin/headgrader-server >"$TMP/ldd.txt" ||
  fail "ldd failed in the image"
! grep -q 'not found' "$TMP/ldd.txt" || { cat "$TMP/ldd.txt" >&2; fail "a library is missing"; }
docker run --rm --entrypoint headgrader "$IMAGE" validate /srv/headgrader/problems >/dev/null ||
  fail "the CLI in the image rejects the bundled problems"

# stop_and_check CONTAINER: SIGTERM via docker stop; the server must exit 0 by itself.
stop_and_check() {
  local c=$1 t0=$SECONDS code
  docker stop -t 10 "$c" >/dev/null
  code=$(docker inspect -f '{{.State.ExitCode}}' "$c")
  [ "$code" = 0 ] || { docker logs "$c" >&2; fail "$c exited $code after SIGTERM"; }
  log "$c stopped by SIGTERM, exit 0, in $((SECONDS - t0)) s"
}

# --- container 1: bundled problems, byte-for-byte answer --------------------------------------
docker run -d --name "$CONTAINER" -p 127.0.0.1::8080 --health-interval 1s \
  "$IMAGE" >/dev/null
wait_healthy "$CONTAINER" 60
port=$(host_port "$CONTAINER")
log "container $CONTAINER healthy on 127.0.0.1:$port"
[ "$(docker exec "$CONTAINER" id -u)" != 0 ] || fail "the server runs as root"
pid1=$(docker exec "$CONTAINER" cat /proc/1/cmdline | tr '\0' ' ')
case $pid1 in *headgrader-server*) ;; *) fail "PID 1 is '$pid1', not the server" ;; esac
status=$(post_grade "$port" "$TMP/docker.json") || fail "container: curl failed"
[ "$status" = 200 ] || { cat "$TMP/docker.json" >&2; fail "container: grade answered $status"; }
# The container keeps the record (its default store, on the volume): its answer is the native
# one with "submission_id" as the last key.
submission_id=$(jq -r .submission_id "$TMP/docker.json")
[[ "$submission_id" =~ ^[0-9a-f]{28}$ ]] || fail "the container's answer has no submission_id"
sed "s/,\"submission_id\":\"$submission_id\"}\$/}/" "$TMP/docker.json" >"$TMP/docker-part1.json"
docker exec "$CONTAINER" test -s /var/lib/headgrader/headgrader.db ||
  fail "no store at /var/lib/headgrader/headgrader.db in the container"
cmp "$TMP/native.json" "$TMP/docker-part1.json" ||
  fail "the container's answer differs from the native server's"
log "grade answer identical to the native server's ($(wc -c <"$TMP/docker.json") bytes;" \
  "$(jq -c '{passed, score}' "$TMP/docker.json"))"
# The grading's access-log line reaches `docker logs` while the server runs (the log is
# written in batches, within 10 ms), as one JSON line.
logged=
for _ in $(seq 50); do
  logged=$(docker logs "$CONTAINER" 2>&1 | grep -F "\"path\":\"/v1/problems/$PROBLEM/grade\"" |
    head -1) && [ -n "$logged" ] && break
  sleep 0.1
done
[ -n "$logged" ] || { docker logs "$CONTAINER" >&2; fail "no access-log line for the grading"; }
jq -e --arg p "$PROBLEM" '.method == "POST" and .status == 200 and .problem == $p and
  .passed == true' <<<"$logged" >/dev/null || fail "unexpected access-log line: $logged"
log "access log in docker logs: $logged"
stop_and_check "$CONTAINER"

# --- container 2: compose, problems from a host folder plus an extra problem ------------------
mkdir -p "$TMP/problems"
cp "$ROOT"/problems/*.json "$TMP/problems/"
jq '.id = "extra-check" | .title = "Extra check (docker/test.sh)"' \
  "$ROOT/problems/$PROBLEM.json" >"$TMP/problems/extra-check.json"
chmod -R a+rX "$TMP" # the container's user is not root
export HEADGRADER_IMAGE=$IMAGE HEADGRADER_PROBLEMS=$TMP/problems HEADGRADER_PUBLISH=127.0.0.1:
COMPOSE=("${COMPOSE_CMD[@]}" -p "$PROJECT" -f "$ROOT/docker/compose.yaml")
"${COMPOSE[@]}" config -q || fail "docker/compose.yaml is invalid"
timeout 120 "${COMPOSE[@]}" up -d --no-build >"$TMP/compose.log" 2>&1 ||
  { cat "$TMP/compose.log" >&2; fail "compose up failed"; }
cid=$("${COMPOSE[@]}" ps -q headgrader)
[ -n "$cid" ] || fail "compose started no container"
wait_healthy "$cid" 90
port=$(host_port "$cid")
log "compose service healthy on 127.0.0.1:$port"
status=$(curl -s --max-time 30 -o "$TMP/extra.json" -w '%{http_code}' \
  "http://127.0.0.1:$port/v1/problems/extra-check") || fail "compose: curl failed"
[ "$status" = 200 ] || { cat "$TMP/extra.json" >&2; fail "GET extra-check answered $status"; }
[ "$(jq -r .id "$TMP/extra.json")" = extra-check ] || fail "GET extra-check: wrong problem"
log "extra problem from the mounted folder is served"
stop_and_check "$cid"
