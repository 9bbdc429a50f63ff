# shellcheck shell=bash disable=SC2034 # (NATIVE_PORT, COMPOSE_CMD: for the scripts sourcing this)
# What the Docker stage's test scripts share; sourced (bash, after `set -euo pipefail`), not run:
#   docker/test.sh, docker/test-scale.sh,
#   tests/integrations/gradescope_container_test.sh, tests/integrations/prairielearn_image_test.sh
# Their log and FAIL lines, the exit trap that removes what they made and says PASS, the tools
# they install, the Docker engine they start, and the waits for containers and the native server.
# A function here that fails ends the script (by fail, or by set -e), so callers need no
# `|| fail`.

# begin_test NAME TMP_NAME: from here on log and fail print "[NAME] ...", $TMP is a new folder
# /tmp/TMP_NAME.XXXXXX, and on exit, whatever ends the script (fail, an error under set -e,
# SIGINT: 130, SIGTERM: 143), everything the script made is removed: first what its own
# function `cleanup` stops, if it defines one; then NATIVE_PID, the containers in CONTAINERS,
# the compose project COMPOSE (its state and last logs on stderr when the script failed), $TMP.
# Then "PASS" or "failed (exit N): WHY", and the script exits with the status it had.
begin_test() {
  TEST_NAME=$1
  TMP=$(mktemp -d "/tmp/$2.XXXXXX")
  FAIL_REASON=
  NATIVE_PID=
  CONTAINERS=()
  COMPOSE=()
  trap end_test EXIT
  # A command that ends the script under set -e without a FAIL line (a tool's own exit status)
  # is named, with its file and line; set -E: in functions too. In subshells (a command
  # substitution, a background job) it is left to the script, which names the line using it.
  set -E
  trap 'on_error $? "${BASH_SOURCE[0]}" "$LINENO" "$BASH_COMMAND"' ERR
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

log() { printf '[%s] %s\n' "$TEST_NAME" "$*"; }
fail() {
  FAIL_REASON=$*
  printf '[%s] FAIL: %s\n' "$TEST_NAME" "$*" >&2
  exit 1
}

# on_error STATUS FILE LINE COMMAND: the ERR trap of begin_test; never called otherwise.
on_error() {
  ((BASHPID == $$)) || return 0
  FAIL_REASON="exit $1 at ${2#"${ROOT:-}"/}:$3: $4"
  printf '[%s] FAIL: %s\n' "$TEST_NAME" "$FAIL_REASON" >&2
}

# end_test: the EXIT trap of begin_test; never called otherwise.
end_test() {
  local rc=$? c
  trap - ERR
  set +e # remove all that can be removed, whatever fails
  if declare -F cleanup >/dev/null; then cleanup; fi
  [ -n "$NATIVE_PID" ] && kill "$NATIVE_PID" 2>/dev/null && wait "$NATIVE_PID" 2>/dev/null
  for c in "${CONTAINERS[@]}"; do docker rm -f "$c" >/dev/null 2>&1; done
  if ((${#COMPOSE[@]})); then
    if ((rc != 0)); then
      "${COMPOSE[@]}" ps >&2
      "${COMPOSE[@]}" logs --no-color --tail 40 >&2
    fi
    timeout 120 "${COMPOSE[@]}" down --volumes --remove-orphans >/dev/null 2>&1
  fi
  rm -rf "$TMP"
  # Last, after the containers' logs: why it failed, and the disk's room (a full disk makes
  # tools fail with their own statuses, e.g. sed's 4).
  if ((rc == 0)); then
    log "PASS"
  else
    log "failed (exit $rc): ${FAIL_REASON:-see above}; free: $(df -h --output=avail /tmp | tail -1 | tr -d ' ') in /tmp"
  fi
  exit "$rc"
}

# --- tools -----------------------------------------------------------------------------------
# apt_install PACKAGE...: installs them from Debian's mirror, or fails without apt-get.
apt_install() {
  command -v apt-get >/dev/null || fail "missing $*, and no apt-get to install it"
  log "installing $* with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 apt-get update -q
  timeout 900 apt-get install -y -q --no-install-recommends "$@"
}

# need_commands COMMAND...: installs those missing, each from the Debian package of its name.
need_commands() {
  local need=() c
  for c in "$@"; do command -v "$c" >/dev/null || need+=("$c"); done
  ((${#need[@]} == 0)) || apt_install "${need[@]}"
}

# --- engine ----------------------------------------------------------------------------------
# start_docker_engine ROOT: until `docker info` answers and debian:bookworm and
# debian:bookworm-slim exist, made locally by ROOT/docker/offline-engine.sh (Debian, as root,
# no registry) if not; nothing is ever pulled.
start_docker_engine() {
  if ! docker info >/dev/null 2>&1 ||
    ! docker image inspect debian:bookworm debian:bookworm-slim >/dev/null 2>&1; then
    command -v apt-get >/dev/null ||
      fail "no Docker engine answers (or debian:bookworm{,-slim} are missing); start one"
    log "starting Docker engine / building base images (docker/offline-engine.sh)"
    timeout 1200 "$1/docker/offline-engine.sh"
  fi
  docker info >/dev/null 2>&1 || fail "no Docker engine answers"
}

# find_compose: COMPOSE_CMD is the compose program there is (v1's docker-compose, else the
# plugin), docker-compose installed if neither.
find_compose() {
  if command -v docker-compose >/dev/null; then
    COMPOSE_CMD=(docker-compose)
  elif docker compose version >/dev/null 2>&1; then
    COMPOSE_CMD=(docker compose)
  else
    apt_install docker-compose
    COMPOSE_CMD=(docker-compose)
  fi
}

# --- containers ------------------------------------------------------------------------------
# wait_healthy CONTAINER SECONDS: until the engine's health check says healthy. Unhealthy is
# waited out too (a check that passes again makes it healthy); a container that stopped is not.
wait_healthy() {
  local c=$1 deadline=$((SECONDS + $2)) state health
  while ((SECONDS < deadline)); do
    state=$(docker inspect -f '{{.State.Status}}' "$c")
    health=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$c")
    [ "$health" = healthy ] && return 0
    [ "$state" = exited ] || [ "$state" = dead ] && break
    sleep 0.5
  done
  docker logs --tail 40 "$c" >&2 || true
  docker inspect -f '{{json .State}}' "$c" >&2 || true
  fail "container $c not healthy within $2 s (state $state, health ${health:-none})"
}

# host_port CONTAINER: the loopback port published for 8080.
host_port() {
  docker port "$1" 8080/tcp | awk -F: 'NR == 1 {print $NF}'
}

# --- the native server: the reference answer -------------------------------------------------
# start_native_server BIN ROOT: runs BIN on ROOT/problems, a free loopback port, no store;
# NATIVE_PID and NATIVE_PORT once it says "listening on http://ADDRESS:PORT" (within 30 s).
start_native_server() {
  local deadline=$((SECONDS + 30)) line=
  "$1" --problems "$2/problems" --address 127.0.0.1 --port 0 --store none \
    >"$TMP/native.out" 2>"$TMP/native.err" &
  NATIVE_PID=$!
  while ((SECONDS < deadline)); do
    line=$(grep -m1 -o 'listening on http://[^ ]*' "$TMP/native.out" 2>/dev/null || true)
    [ -n "$line" ] && break
    kill -0 "$NATIVE_PID" 2>/dev/null || break
    sleep 0.2
  done
  [ -n "$line" ] ||
    { cat "$TMP/native.out" "$TMP/native.err" >&2; fail "native server did not start"; }
  NATIVE_PORT=${line##*:}
}

# stop_native_server: SIGTERM; a note if it does not exit 0.
stop_native_server() {
  kill "$NATIVE_PID"
  wait "$NATIVE_PID" || log "note: native server exited $? on SIGTERM"
  NATIVE_PID=
}
