#!/usr/bin/env bash
# For a Debian 12 machine that reaches Debian's package mirror but no container
# registry: start a Docker engine from Debian's packages and build the
# debian:bookworm base image locally (debootstrap + docker import), tagged also
# bookworm-slim, 12 and 12-slim. Idempotent; run as root. Afterwards
# `docker build` works for Dockerfiles whose FROM is one of those tags (no
# `# syntax=` line, no --pull), and `docker-compose` (v1) is installed.
# (Our copy of the course's shared/tools/docker-offline-engine.sh, so that a clean clone,
# as in CI, has it too; docker/test.sh runs it when `docker info` fails.)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
LOG=${DOCKERD_LOG:-/tmp/dockerd.log}
ROOTFS=${ROOTFS:-/tmp/rootfs}

# 1. packages (docker.io = engine 20.10 + containerd + runc; docker-compose = v1.29)
need=()
for p in docker.io debootstrap docker-compose; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
  apt-get update -q
  apt-get install -y -q "${need[@]}"
fi

# 2. engine (no systemd here: start dockerd by hand)
if ! docker info >/dev/null 2>&1; then
  nohup /usr/sbin/dockerd >"$LOG" 2>&1 &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || { tail -50 "$LOG"; exit 1; }
fi
echo "dockerd pid $(cat /var/run/docker.pid)"

# 3. base image, from the same mirror the host's apt uses
if ! docker image inspect debian:bookworm >/dev/null 2>&1; then
  src=/etc/apt/sources.list.d/debian.sources
  mirror=$(awk '/^URIs:/{print $2; exit}' "$src" 2>/dev/null || true)
  sec=$(awk '/^URIs:/{print $2}' "$src" 2>/dev/null | grep -m1 security || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  sec=${sec:-http://deb.debian.org/debian-security}
  rm -rf "$ROOTFS"
  debootstrap --variant=minbase bookworm "$ROOTFS" "$mirror"
  cat >"$ROOTFS/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $sec bookworm-security main
EOF
  rm -f "$ROOTFS"/var/cache/apt/archives/*.deb
  rm -rf "$ROOTFS"/var/lib/apt/lists/*
  tar --numeric-owner -C "$ROOTFS" -c . |
    docker import --change 'CMD ["bash"]' - debian:bookworm
  rm -rf "$ROOTFS"
fi
for t in bookworm-slim 12 12-slim; do docker tag debian:bookworm "debian:$t"; done
docker images debian
