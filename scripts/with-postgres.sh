#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL 15 server: initdb and pg_ctl in a temporary
# folder, as an unprivileged user (nobody when run as root), listening on a free loopback port
# only. Exports HEADGRADER_TEST_POSTGRES=postgresql://USER@127.0.0.1:PORT/postgres for the
# command, then stops the server and removes the folder, whatever the command's outcome.
# Usage: scripts/with-postgres.sh COMMAND [ARGS...]   (exits with the command's status)
set -euo pipefail
bin=${HEADGRADER_PG_BIN:-/usr/lib/postgresql/15/bin}
[[ -x "$bin/initdb" ]] || { echo "with-postgres: no initdb in $bin (apt-get install postgresql)" >&2; exit 1; }
(($#)) || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }

dir=$(mktemp -d /tmp/headgrader-pg.XXXXXX)
as_user=()
user=$(id -un)
if [[ $(id -u) -eq 0 ]]; then
  user=nobody
  chown nobody "$dir"
  as_user=(runuser -u nobody --)
fi
chmod 700 "$dir"

# A free loopback port: ask the kernel for one, then let PostgreSQL take it.
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

stop() {
  "${as_user[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT

(cd "$dir" && "${as_user[@]}" "$bin/initdb" -D "$dir/data" -U "$user" -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1) ||
  { cat "$dir/initdb.log" >&2; exit 1; }
# fsync stays on: the durability tests kill the server, not the machine, but the store's
# commit path should be measured as it runs in production.
(cd "$dir" && "${as_user[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
  -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=200" \
  start >/dev/null) || { cat "$dir/server.log" >&2; exit 1; }

export HEADGRADER_TEST_POSTGRES="postgresql://$user@127.0.0.1:$port/postgres"
echo "with-postgres: PostgreSQL on 127.0.0.1:$port ($dir)" >&2
status=0
"$@" || status=$?
exit "$status"
