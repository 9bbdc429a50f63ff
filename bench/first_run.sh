#!/usr/bin/env bash
# The first run on a fresh machine (docs/first-run.md): a fresh clone of HEAD, in a fresh
# debian:bookworm container limited to 2 CPUs, runs `scripts/run.sh` as root: apt-get update
# and install, configure, build, start. Prints the seconds until the server's "listening on"
# line and each phase's share, then stops the container. Needs Docker and the debian:bookworm
# image (docker/offline-engine.sh makes both; apt reaches Debian's mirror).
# Usage: bench/first_run.sh [CPUS]   (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
cpus=${1:-2}
work=$(mktemp -d /tmp/headgrader-first-run.XXXXXX)
name=headgrader-first-run-$$
cleanup() {
  docker rm -f "$name" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
git clone -q . "$work/src"
start=$(date +%s.%N)
# Each phase's end is stamped on stdout, so the install, configure and build are told apart.
docker run -d --name "$name" --cpus "$cpus" -v "$work/src:/src" debian:bookworm bash -c '
  cd /src
  stamp() { echo "phase $1 $(date +%s.%N)"; }
  stamp start
  scripts/install-deps.sh run >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; exit 1; }
  stamp installed
  exec scripts/run.sh --port 18080' >/dev/null
until docker logs "$name" 2>&1 | grep -q 'listening on'; do
  if [[ $(docker inspect -f '{{.State.Running}}' "$name") != true ]]; then
    docker logs "$name" 2>&1 | tail -30
    echo "first_run: the container stopped before the server listened" >&2
    exit 1
  fi
  sleep 1
done
end=$(date +%s.%N)
logs=$(docker logs "$name" 2>&1)
installed=$(awk '/^phase installed/{print $3}' <<<"$logs")
container_start=$(awk '/^phase start/{print $3}' <<<"$logs")
awk -v s="$start" -v c="$container_start" -v i="$installed" -v e="$end" -v cpus="$cpus" 'BEGIN {
  printf "first run on %s CPUs: %.0f s to \"listening on\" (container start %.0f s, apt %.0f s, configure and build %.0f s)\n",
         cpus, e - s, c - s, i - c, e - i }'
