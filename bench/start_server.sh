# Sourced by the bench scripts: start_server SERVER THREADS starts headgrader-server on the
# bundled problems on a free loopback port (access log to /dev/null: the scripts measure the
# service, not a terminal; SERVER_LOG=pipe sends it to a pipe read by another process, as
# under Docker), waits for its "listening on" line and sets $pid and $url. The server is
# stopped with SIGTERM when the calling script exits; its last stdout line, the store's count of
# records and transactions (when it keeps any), is printed then. STORE is its --store (default
# none: the figures of Part 1; sqlite:PATH or postgresql://… to measure the record).
# server_ticks and server_cpu_us (below) measure its CPU time, db_ticks that of PostgreSQL.
start_server() {
  local server=$1 threads=$2 root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
  [ -x "$server" ] || { echo "no server binary at $server; build it first" >&2; exit 1; }
  server_out="$(mktemp)"
  # fd 3: where the server's stderr goes; closed here once the server holds it.
  if [ "${SERVER_LOG:-null}" = pipe ]; then exec 3> >(cat >/dev/null); else exec 3>/dev/null; fi
  "$server" --address 127.0.0.1 --port 0 --threads "$threads" \
    --problems "$root/problems" --store "${STORE:-none}" >"$server_out" 2>&3 3>&- &
  pid=$!
  exec 3>&-
  trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; grep "^store:" "$server_out" || true
        rm -f "$server_out"' EXIT
  for _ in $(seq 100); do grep -q '^listening on' "$server_out" && break; sleep 0.05; done
  url="$(sed -n 's/^listening on //p' "$server_out")"
  [ -n "$url" ] || { echo "the server did not start" >&2; exit 1; }
  case "$url" in http://127.0.0.1:*) ;; *) echo "not loopback: $url" >&2; exit 1 ;; esac
}

# The started server's CPU time (user + system, in clock ticks) so far: per request it is a
# steadier figure than requests/s, which also depends on how the machine shares its cores
# with wrk.
server_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
# server_cpu_us TICKS_BEFORE TICKS_AFTER REQUESTS: the server's CPU µs a request between the two.
server_cpu_us() {
  awk -v t=$(($2 - $1)) -v hz="$(getconf CLK_TCK)" -v n="$3" \
    'BEGIN { printf "%.1f", t / hz * 1e6 / n }'
}
# The CPU time (clock ticks) so far of every PostgreSQL process on the machine (the
# committer's and the pool's backends, the WAL writer, the checkpointer): with the store
# on PostgreSQL the database's work for a grading runs there, beside the server's, on the same
# cores. A backend that exits between two readings takes its ticks with it, so this can only
# undercount; the store's connections are kept open for the run.
db_ticks() {
  local total=0 ticks p
  for p in $(pgrep -x postgres); do
    ticks="$(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null)" || continue
    total=$((total + ${ticks:-0}))
  done
  echo "$total"
}
