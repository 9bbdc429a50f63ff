#!/usr/bin/env bash
# The PrairieLearn external-grader image, run the way PrairieLearn's grader runs a job
# (PrairieLearn's docs/externalGrading.md and its grader's container settings):
#   tests/integrations/prairielearn_image_test.sh
#
# 1. starts a Docker engine and makes debian:bookworm{,-slim} if they are missing
#    (docker/offline-engine.sh: Debian only, as root; no registry is needed, nothing pulled);
# 2. builds integrations/prairielearn/Dockerfile as docs/integrations.md tells course staff
#    (from the repository root), tagged headgrader-prairielearn:test
#    (HEADGRADER_TEST_PRAIRIELEARN_IMAGE), and prints its size: what it adds to
#    debian:bookworm-slim must stay under 20 MB (the program and the problems);
# 3. reads example-question/: the entrypoint, image and timeout of info.json, the student's
#    file name of question.html;
# 4. grades the three submissions of common.sh (passing; failing, the soft key diagnosed; not
#    gradable), each as one job: a fresh folder laid out as PrairieLearn lays out /grade
#    (student/<file>, data/data.json, serverFilesCourse/, shared/, tests/; no results/, which
#    the grader must make) mounted at /grade of a new container with no network, PrairieLearn's
#    limits (2 GiB, 1024 processes, 0.9 CPU, no core dumps), a TTY, info.json's entrypoint
#    (which replaces the image's command) and its timeout; the container must exit 0 (else
#    PrairieLearn discards the results) and leave /grade/results/results.json, under 1 MB,
#    with gradable, score and format_errors as docs/integrations.md says (common.sh);
# 5. runs the passing job once more without an entrypoint: the image's own command gives the
#    same results.json.
# Prints the time of each part. Every wait has a deadline; containers and temporary files are
# removed on exit, the image kept (the next build reuses its cache: compiling only when
# common/, include/, grader/ or cli/ changed; HEADGRADER_DOCKER_NO_CACHE=1 builds without the
# cache).
set -euo pipefail

T0=$SECONDS
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$ROOT/tests/integrations/common.sh"
# shellcheck source-path=SCRIPTDIR/../.. source=scripts/lib/docker-stage.sh
. "$ROOT/scripts/lib/docker-stage.sh"
IMAGE=${HEADGRADER_TEST_PRAIRIELEARN_IMAGE:-headgrader-prairielearn:test}
QUESTION=$ROOT/integrations/prairielearn/example-question
MAX_ADDED_BYTES=$((20 * 1000 * 1000)) # over debian:bookworm-slim, "MB" as docker prints it
BUILD_FLAGS=()
[ "${HEADGRADER_DOCKER_NO_CACHE:-0}" = 1 ] && BUILD_FLAGS+=(--no-cache)
CONTAINER_PREFIX=headgrader-prairielearn-test-$$
begin_test prairielearn_image headgrader-prairielearn-test
mb() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1e6}'; }

start_docker_engine "$ROOT"

# --- 2. the image, as course staff build it --------------------------------------------------
log "building $IMAGE (integrations/prairielearn/Dockerfile, JOBS=2)"
T_BUILD=$SECONDS
timeout 3600 docker build "${BUILD_FLAGS[@]}" --build-arg JOBS=2 \
  -f integrations/prairielearn/Dockerfile -t "$IMAGE" . >"$TMP/build.log" 2>&1 ||
  { tail -60 "$TMP/build.log" >&2; fail "docker build failed"; }
T_BUILT=$SECONDS
compiled=compiled
grep -A1 'RUN cmake -S . -B /build' "$TMP/build.log" | grep -q 'Using cache' &&
  compiled="cached: common/, include/, grader/ and cli/ as in a build before"
log "built in $((T_BUILT - T_BUILD)) s (headgrader $compiled)"
size=$(docker image inspect -f '{{.Size}}' "$IMAGE")
base=$(docker image inspect -f '{{.Size}}' debian:bookworm-slim)
log "image $IMAGE: $(mb "$size") MB ($size bytes): debian:bookworm-slim $(mb "$base") MB" \
  "+ $(mb $((size - base))) MB (headgrader and the problems)"
((size - base < MAX_ADDED_BYTES)) ||
  fail "the image adds $((size - base)) bytes to its base, over $MAX_ADDED_BYTES"

# --- 3. the example question ----------------------------------------------------------------
# One line each: the image, the timeout, then the entrypoint's words (PrairieLearn splits a
# string entrypoint shell-like).
if ! /usr/bin/env python3 - "$QUESTION/info.json" >"$TMP/question.txt" <<'PY'; then
import json, shlex, sys
with open(sys.argv[1]) as f:
    info = json.load(f)
assert info["gradingMethod"] == "External", info["gradingMethod"]
o = info["externalGradingOptions"]
assert o["enabled"] is True and not o.get("enableNetworking", False), o
assert 0 < o.get("timeout", 30) <= 600, o.get("timeout")
e = o["entrypoint"]
print(o["image"], o.get("timeout", 30))
print("\n".join(shlex.split(e) if isinstance(e, str) else e))
PY
  fail "example-question/info.json is not an external-grading question"
fi
read -r question_image TIMEOUT <"$TMP/question.txt"
mapfile -t ENTRYPOINT < <(tail -n +2 "$TMP/question.txt")
[ "$question_image" = "${IMAGE%%:*}" ] ||
  fail "info.json's image is $question_image, not the one course staff build (${IMAGE%%:*})"
FILE=$(sed -n 's/.*<pl-file-editor[^>]* file-name="\([^"]*\)".*/\1/p' "$QUESTION/question.html")
[ -n "$FILE" ] || fail "question.html has no <pl-file-editor file-name=...>"
log "example question: entrypoint '${ENTRYPOINT[*]}', timeout $TIMEOUT s, the student's file $FILE"

# --- 4. one job a submission -----------------------------------------------------------------
# make_job DIR NAME: /grade as PrairieLearn's buildDirectory makes it for submission NAME.
make_job() {
  mkdir -p "$1/serverFilesCourse" "$1/shared" "$1/tests" "$1/student" "$1/data"
  printf '%s' "${SUBMISSIONS[$2]}" >"$1/student/$FILE"
  /usr/bin/env python3 - "$1/student/$FILE" "$1/data/data.json" <<'PY'
import base64, json, os, sys
with open(sys.argv[1], "rb") as f:
    contents = base64.b64encode(f.read()).decode()
answer = {"_files": [{"name": os.path.basename(sys.argv[1]), "contents": contents}]}
data = {"params": {}, "correct_answers": {}, "submitted_answers": answer, "format_errors": {},
        "partial_scores": {}, "score": 0, "feedback": {}, "variant_seed": 1, "options": {},
        "raw_submitted_answers": answer, "gradable": True}
with open(sys.argv[2], "w") as f:
    json.dump(data, f)
PY
}
# run_job DIR NAME [ENTRYPOINT...]: runs the container on DIR as PrairieLearn's grader does;
# the results into $TMP/results/NAME.json.
run_job() {
  local dir=$1 name=$2 c=$CONTAINER_PREFIX-$2 rc=0 code bytes
  shift 2
  local entry=()
  (($#)) && entry=(--entrypoint "$1")
  CONTAINERS+=("$c")
  docker create --name "$c" --network none --tty --memory 2g --memory-swap 2g \
    --pids-limit 1024 --cpu-period 100000 --cpu-quota 90000 --ipc private --ulimit core=0 \
    -v "$dir:/grade" "${entry[@]}" "$IMAGE" "${@:2}" >/dev/null
  timeout "$TIMEOUT" docker start -a "$c" >"$TMP/$name.out" 2>&1 || rc=$?
  ((rc != 124)) || fail "$name: not done within info.json's timeout, $TIMEOUT s"
  code=$(docker inspect -f '{{.State.ExitCode}}' "$c")
  [ "$code" = 0 ] || { cat "$TMP/$name.out" >&2; fail "$name: the container exited $code"; }
  docker rm -f "$c" >/dev/null
  [ -f "$dir/results/results.json" ] || fail "$name: no /grade/results/results.json"
  bytes=$(wc -c <"$dir/results/results.json")
  ((bytes <= 1024 * 1024)) || fail "$name: results.json is $bytes bytes, over PrairieLearn's 1 MB"
  cp "$dir/results/results.json" "$TMP/results/$name.json"
}
mkdir -p "$TMP/results"
T_JOBS=$SECONDS
for name in "${SUBMISSION_NAMES[@]}"; do
  t=$SECONDS
  make_job "$TMP/job-$name" "$name"
  run_job "$TMP/job-$name" "$name" "${ENTRYPOINT[@]}"
  log "$name: exit 0 in $((SECONDS - t)) s, $(/usr/bin/env python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print("gradable", str(r["gradable"]).lower() + ", score", r.get("score", "none"))' \
    "$TMP/results/$name.json")"
done
check_prairielearn_results "$TMP/results" || fail "a results.json is not as specified"
log "passing, failing (key_too_soft) and not gradable submissions graded as specified"

# --- 5. the image's own command ---------------------------------------------------------------
make_job "$TMP/job-default" passing
run_job "$TMP/job-default" default
cmp -s "$TMP/results/passing.json" "$TMP/results/default.json" ||
  fail "without an entrypoint, the image's command gives another results.json"
log "without an entrypoint, the image's command grades $INTEGRATION_PROBLEM the same"

T_END=$SECONDS
log "time: image $((T_BUILT - T_BUILD)) s, the four jobs $((T_END - T_JOBS)) s," \
  "total $((T_END - T0)) s"
