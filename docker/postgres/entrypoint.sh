#!/bin/bash
# The PostgreSQL container's PID 1: on the first start, initialise the database in the volume
# (a role POSTGRES_USER with password POSTGRES_PASSWORD owning the database POSTGRES_DB), then
# run the server in the foreground, listening on every interface with password (SCRAM) auth.
# Later starts find the database and only run the server; the variables are then unused (change
# a password with ALTER ROLE). The superuser `postgres` has no password: it logs in only over
# the container's own Unix socket (peer), e.g. `docker exec -it CONTAINER psql`.
set -euo pipefail
bin=/usr/lib/postgresql/15/bin
volume=/var/lib/postgresql/data
PGDATA=$volume/15
user=${POSTGRES_USER:-headgrader}
db=${POSTGRES_DB:-headgrader}

say() { printf 'headgrader-postgres: %s\n' "$*" >&2; }

if [[ ! -s $PGDATA/PG_VERSION ]]; then
  [[ -n ${POSTGRES_PASSWORD:-} ]] || { say "POSTGRES_PASSWORD is empty; not initialising"; exit 1; }
  # Names go into SQL unquoted: plain lower-case identifiers only.
  for name in "$user" "$db"; do
    [[ $name =~ ^[a-z_][a-z0-9_]{0,62}$ ]] ||
      { say "'$name' is not a plain lower-case name ([a-z_][a-z0-9_]*)"; exit 1; }
  done
  # Made beside the final folder and renamed at the end, so that a start killed half-way
  # leaves no half-made database behind.
  staging=$volume/15.initialising
  rm -rf "$staging"
  say "initialising $PGDATA (role $user, database $db)"
  # Written without fsync (initdb --no-sync, fsync=off below), then flushed by one syncfs(2)
  # of the volume before the rename: the same durability as fsync-ing each of the ~1 000
  # files, which took 3 of the 5 seconds of a first start.
  "$bin/initdb" -D "$staging" -U postgres -E UTF8 --no-locale --no-sync \
    --auth-local=peer --auth-host=scram-sha-256 >/dev/null
  cat >>"$staging/postgresql.conf" <<CONF
listen_addresses = '*'
CONF
  cat >>"$staging/pg_hba.conf" <<CONF
# Any address of the compose network, with the role's password.
host    all             all             0.0.0.0/0               scram-sha-256
host    all             all             ::/0                    scram-sha-256
CONF
  # Single-user mode: no server listens yet, so nothing connects before the role exists.
  # One command a line; the password's quotes doubled for the SQL string. It exits 0 even
  # when a command fails, so its errors are looked for (only the ERROR lines are shown: the
  # statement would show the password).
  errors=$("$bin/postgres" --single -c fsync=off -D "$staging" postgres 2>&1 >/dev/null <<SQL
CREATE ROLE $user LOGIN PASSWORD '${POSTGRES_PASSWORD//\'/\'\'}';
CREATE DATABASE $db OWNER $user;
SQL
  ) || true
  if grep -q 'ERROR:' <<<"$errors"; then
    grep 'ERROR:' <<<"$errors" >&2
    say "could not create the role or the database; not starting"
    exit 1
  fi
  sync -f "$staging"
  mv "$staging" "$PGDATA"
  sync -f "$volume"
fi
exec "$bin/postgres" -D "$PGDATA"
