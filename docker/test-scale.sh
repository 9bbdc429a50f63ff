#!/usr/bin/env bash
# End-to-end test of the compose file's `scale` profile: HAProxy in front of three headgrader
# servers that share one PostgreSQL, and Prometheus scraping the three.
#   docker/test-scale.sh [BUILD_DIR]   (BUILD_DIR may also come from the environment; default
#                                       build; its headgrader-server, if built, gives the
#                                       reference answer; nothing is compiled here)
#
# 1. starts a Docker engine and makes the Debian base images if they are missing
#    (docker/offline-engine.sh: Debian only, as root, no registry needed);
# 2. builds the four images, at once: headgrader (docker/Dockerfile, the tag docker/test.sh
#    builds, so after it this is the build cache only), docker/postgres, docker/haproxy and
#    docker/prometheus;
# 3. starts the profile with 3 replicas on an empty database and waits until PostgreSQL,
#    HAProxy and its 3 servers are up, and until Prometheus (its own query API, on the
#    loopback port published for it) has the 3 replicas as targets up; the three migrated the
#    schema together, once;
# 4. grades the handout's consonant-anywhere solution 60 times through HAProxy, 6 at a time,
#    half of them with distinct Idempotency-Keys: every answer is 200, passed, with a
#    submission_id, and the native server's answer byte for byte apart from that id; the
#    replicas' access logs hold the 60 gradings, spread over more than one replica; and
#    Prometheus' query API comes to report sum(headgrader_gradings_total) = 60, and for each
#    replica (`instance`, its address) the count of its access log. Exact, because it is
#    asked here: headgrader_gradings_total counts the gradings run, and every one of these 60
#    ran exactly once (no key twice, no replica stopped). Later, a replay of a key runs no
#    grading while the two replicas of step 5 may both run theirs, and the replica stopped in
#    step 6 takes its counters with it: there the sum would say less than the answers 200;
# 5. sends one Idempotency-Key with the same body to two replicas at once, straight to their
#    addresses, then through HAProxy: three times the same answer, one record;
# 6. stops one replica (docker stop: SIGTERM) while 6 clients grade in a loop (3 with a new
#    key for every grading, 3 without): the replica exits 0 and no grading fails. HAProxy
#    sends again what a stopping replica refused or closed unanswered, except a grading
#    without a key that had reached it (docker/haproxy/haproxy.cfg): one that the replica had
#    accepted but not yet read when SIGTERM came gets HAProxy's 502. That is allowed for at
#    most one grading per key-less client (each has one in flight), is reported, and leaves
#    no record (step 7 checks);
# 7. the records in PostgreSQL are exactly the distinct submission ids answered 200: nothing
#    lost, nothing twice;
# 8. backs the database up with pg_dump (custom format, as docs/operations.md says) while the
#    servers run, restores it with pg_restore into a new database, and checks that every table
#    of the two holds the same rows (count and checksum); then a headgrader server started on
#    the restored database (with a staff key) lists exactly the records of step 7.
# Prints the time of each part. Every wait has a deadline; the containers, the compose
# project (with its volumes) and temporary files are removed on exit, the images kept.
set -euo pipefail

T0=$SECONDS
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
# shellcheck source-path=SCRIPTDIR/.. source=scripts/lib/docker-stage.sh
. "$ROOT/scripts/lib/docker-stage.sh"
BUILD_DIR=${1:-${BUILD_DIR:-build}}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
IMAGE=${HEADGRADER_TEST_IMAGE:-headgrader:test}
POSTGRES_IMAGE=${HEADGRADER_TEST_POSTGRES_IMAGE:-headgrader-postgres:test}
HAPROXY_IMAGE=${HEADGRADER_TEST_HAPROXY_IMAGE:-headgrader-haproxy:test}
PROMETHEUS_IMAGE=${HEADGRADER_TEST_PROMETHEUS_IMAGE:-headgrader-prometheus:test}
REPLICAS=3
GRADINGS=60      # step 4
PARALLEL=6       # step 4: at a time
STREAM_CLIENTS=6 # step 6: odd-numbered clients send keys
PROBLEM=consonant-anywhere
# The handout's solution to Exercise 2 (consonant anywhere).
SUBMISSION='{"W_q":[[1,1]],"W_k":[[0,5]],"W_V":[[1,0],[0,1]]}'
GRADE_LINE="\"path\":\"/v1/problems/$PROBLEM/grade\""

RUN_ID=$$
PROJECT=headgraderscale$RUN_ID
WORKERS=()
begin_test docker/test-scale headgrader-scale-test
# Before the rest of the exit trap's removals: step 6's clients.
cleanup() {
  local pid
  touch "$TMP/stream.stop"
  for pid in "${WORKERS[@]}"; do kill "$pid" 2>/dev/null; done
}

# --- tools and the engine (scripts/lib/docker-stage.sh) --------------------------------------
need_commands curl jq
start_docker_engine "$ROOT"
find_compose

# --- images (in parallel: three of the four builds mostly wait for Debian's mirror) ----------
log "building $IMAGE, $POSTGRES_IMAGE, $HAPROXY_IMAGE and $PROMETHEUS_IMAGE"
timeout 3600 docker build -f docker/Dockerfile -t "$IMAGE" . >"$TMP/build-headgrader.log" 2>&1 &
b1=$!
timeout 1200 docker build -t "$POSTGRES_IMAGE" docker/postgres >"$TMP/build-postgres.log" 2>&1 &
b2=$!
timeout 1200 docker build -t "$HAPROXY_IMAGE" docker/haproxy >"$TMP/build-haproxy.log" 2>&1 &
b3=$!
timeout 1200 docker build -t "$PROMETHEUS_IMAGE" docker/prometheus \
  >"$TMP/build-prometheus.log" 2>&1 &
b4=$!
for b in "$b1:headgrader" "$b2:postgres" "$b3:haproxy" "$b4:prometheus"; do
  wait "${b%%:*}" ||
    { tail -40 "$TMP/build-${b#*:}.log" >&2; fail "docker build (${b#*:}) failed"; }
done
T_BUILT=$SECONDS
log "images built in $((T_BUILT - T0)) s"

# --- helpers ---------------------------------------------------------------------------------
# post_grade BASE_URL OUTFILE [IDEMPOTENCY_KEY]: POST the submission, write the body, print the
# status (000 when curl got no answer at all).
post_grade() {
  local header=()
  [ -n "${3:-}" ] && header=(-H "Idempotency-Key: $3")
  curl -s --max-time 30 -o "$2" -w '%{http_code}' -H 'Content-Type: application/json' \
    "${header[@]}" -d "$SUBMISSION" "$1/v1/problems/$PROBLEM/grade" || true
}
# check_answer FILE: a passed grading with a submission id.
check_answer() {
  jq -e '.passed == true and (.submission_id | test("^[0-9a-f]{28}$"))' "$1" >/dev/null 2>&1 ||
    { cat "$1" >&2; fail "not a passed grading with a submission_id: $1"; }
}
ip_of() { docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$1"; }
# servers_up: how many of HAProxy's servers are UP (its stats page, on the compose network).
servers_up() {
  curl -s --max-time 5 "http://$HAPROXY_IP:8404/stats;csv" |
    awk -F, '$1 == "headgrader" && $2 ~ /^hg/ && $18 == "UP"' | wc -l
}
wait_servers_up() {
  local want=$1 deadline=$((SECONDS + $2)) up=0
  while ((SECONDS < deadline)); do
    up=$(servers_up)
    ((up == want)) && return 0
    sleep 0.2
  done
  curl -s --max-time 5 "http://$HAPROXY_IP:8404/stats;csv" | cut -d, -f1,2,18 >&2 || true
  fail "HAProxy has $up servers up, not $want, after $2 s"
}
gradings_logged() { docker logs "$1" 2>&1 | grep -cF "$GRADE_LINE" || true; }
sql() { "${COMPOSE[@]}" exec -T postgres psql -X -q -At -v ON_ERROR_STOP=1 -d headgrader -c "$1"; }
# prom_query QUERY: the instant vector Prometheus answers, one "LABEL VALUE" line a series
# (LABEL: the series' instance, "-" without one); nothing when it is empty or not answered.
prom_query() {
  curl -s --max-time 5 -G --data-urlencode "query=$1" "$PROM_URL/api/v1/query" |
    jq -r 'select(.status == "success") | .data.result[] | "\(.metric.instance // "-") \(.value[1])"' \
      2>/dev/null || true
}
# prom_wait QUERY WANT SECONDS: until prom_query QUERY prints exactly WANT.
prom_wait() {
  local deadline=$((SECONDS + $3)) got=
  while ((SECONDS < deadline)); do
    got=$(prom_query "$1")
    [ "$got" = "$2" ] && return 0
    sleep 0.5
  done
  fail "Prometheus answers $1 with \"$got\", not \"$2\", after $3 s"
}

# --- the reference answer: the native server of BUILD_DIR, if built --------------------------
NATIVE_BIN=$(find "$BUILD_DIR" -type f -name headgrader-server -perm -u+x -print -quit \
  2>/dev/null || true)
if [ -n "$NATIVE_BIN" ]; then
  start_native_server "$NATIVE_BIN" "$ROOT"
  status=$(post_grade "http://127.0.0.1:$NATIVE_PORT" "$TMP/native.json")
  [ "$status" = 200 ] || fail "native server: grade answered $status"
  stop_native_server
else
  log "note: no headgrader-server under $BUILD_DIR; answers are checked by their fields only"
fi

# --- 3. the profile, 3 replicas --------------------------------------------------------------
export HEADGRADER_IMAGE=$IMAGE HEADGRADER_POSTGRES_IMAGE=$POSTGRES_IMAGE \
  HEADGRADER_HAPROXY_IMAGE=$HAPROXY_IMAGE HEADGRADER_PROMETHEUS_IMAGE=$PROMETHEUS_IMAGE \
  HEADGRADER_PUBLISH=127.0.0.1: HEADGRADER_PROMETHEUS_PUBLISH=127.0.0.1: \
  HEADGRADER_PG_PASSWORD=test-$RUN_ID-$RANDOM$RANDOM
unset HEADGRADER_PROBLEMS COMPOSE_PROFILES
COMPOSE=("${COMPOSE_CMD[@]}" -p "$PROJECT" -f "$ROOT/docker/compose.yaml" --profile scale)
"${COMPOSE[@]}" config -q || fail "docker/compose.yaml is invalid"
T_UP=$SECONDS
timeout 180 "${COMPOSE[@]}" up -d --no-build --scale "headgrader-scaled=$REPLICAS" \
  haproxy prometheus >"$TMP/compose-up.log" 2>&1 ||
  { cat "$TMP/compose-up.log" >&2; fail "compose up failed"; }
! "${COMPOSE_CMD[@]}" -p "$PROJECT" -f "$ROOT/docker/compose.yaml" ps -q headgrader | grep -q . ||
  fail "the default profile's server started beside the scale profile"
PG_CID=$("${COMPOSE[@]}" ps -q postgres)
HAPROXY_CID=$("${COMPOSE[@]}" ps -q haproxy)
PROM_CID=$("${COMPOSE[@]}" ps -q prometheus)
mapfile -t REPLICA_CIDS < <("${COMPOSE[@]}" ps -q headgrader-scaled)
((${#REPLICA_CIDS[@]} == REPLICAS)) ||
  fail "${#REPLICA_CIDS[@]} replicas are running, not $REPLICAS"
wait_healthy "$PG_CID" 60
HAPROXY_IP=$(ip_of "$HAPROXY_CID")
wait_servers_up "$REPLICAS" 60
wait_healthy "$HAPROXY_CID" 60 # its own check asks every 2 s whether a server is up
port=$(host_port "$HAPROXY_CID")
URL=http://127.0.0.1:$port
log "PostgreSQL healthy, HAProxy on $URL with $REPLICAS servers up, $((SECONDS - T_UP)) s after up"
wait_healthy "$PROM_CID" 60
PROM_URL=http://$(docker port "$PROM_CID" 9090/tcp | awk 'NR == 1 {print $NF}')
# Its targets come from Docker's DNS (the service's name), so this also says that it finds
# every replica there.
prom_wait 'count(up{job="headgrader"} == 1)' "- $REPLICAS" 60
log "Prometheus on $PROM_URL scrapes $REPLICAS replicas, all up, $((SECONDS - T_UP)) s after up"
# Three servers migrated one empty database at the same moment: each version exactly once.
versions=$(sql "SELECT count(*) || ' ' || count(DISTINCT version) || ' ' || max(version)
                FROM schema_version")
read -r v_rows v_distinct v_max <<<"$versions"
((v_rows == v_distinct && v_rows == v_max && v_max >= 1)) ||
  fail "schema_version after a concurrent start: $versions (rows, distinct, max)"
log "schema migrated once to version $v_max by $REPLICAS servers starting together"

# --- 4. gradings through HAProxy -------------------------------------------------------------
mkdir -p "$TMP/answers"
for ((i = 1; i <= GRADINGS; i++)); do
  key=
  ((i % 2 == 0)) && key=scale-$RUN_ID-$i
  (post_grade "$URL" "$TMP/answers/p4-$i.json" "$key" >"$TMP/answers/p4-$i.status") &
  ((i % PARALLEL == 0)) && wait
done
wait
for ((i = 1; i <= GRADINGS; i++)); do
  status=$(cat "$TMP/answers/p4-$i.status")
  [ "$status" = 200 ] || { cat "$TMP/answers/p4-$i.json" >&2; fail "grading $i answered $status"; }
  check_answer "$TMP/answers/p4-$i.json"
  if [ -n "$NATIVE_BIN" ]; then
    id=$(jq -r .submission_id "$TMP/answers/p4-$i.json")
    sed "s/,\"submission_id\":\"$id\"}\$/}/" "$TMP/answers/p4-$i.json" >"$TMP/part1.json"
    cmp -s "$TMP/native.json" "$TMP/part1.json" ||
      fail "grading $i differs from the native server's answer (besides its submission_id)"
  fi
done
sleep 0.2 # the access log is written within 10 ms
counts=()
total=0
serving=0
for cid in "${REPLICA_CIDS[@]}"; do
  n=$(gradings_logged "$cid")
  counts+=("$n")
  total=$((total + n))
  ((n > 0)) && serving=$((serving + 1))
done
((total == GRADINGS)) || fail "the replicas logged $total gradings, not $GRADINGS"
((serving >= 2)) || fail "all $GRADINGS gradings came from one replica (${counts[*]})"
log "$GRADINGS gradings through HAProxy: all 200 and passed$([ -n "$NATIVE_BIN" ] &&
  echo ", the native answer byte for byte"); per replica: ${counts[*]}"
# What Prometheus scraped: the sum over the replicas, and each replica's own count, which is
# what its access log holds (the instance is its address and the metrics port).
t_scraped=$SECONDS
prom_wait 'sum(headgrader_gradings_total)' "- $GRADINGS" 30
want=
for i in "${!REPLICA_CIDS[@]}"; do
  want+="$(ip_of "${REPLICA_CIDS[$i]}"):9100 ${counts[$i]}"$'\n'
done
want=$(sort <<<"$want" | sed '/^$/d')
got=$(prom_query 'sum by (instance) (headgrader_gradings_total)' | sort)
[ "$got" = "$want" ] || fail "Prometheus' headgrader_gradings_total by instance:
$got
and the replicas' access logs:
$want"
log "Prometheus' query API: sum(headgrader_gradings_total) = $GRADINGS, each replica's its" \
  "access log's, $((SECONDS - t_scraped)) s after the last answer"

# --- 5. one Idempotency-Key at two replicas at once ------------------------------------------
DUP_KEY=scale-$RUN_ID-twice
a_ip=$(ip_of "${REPLICA_CIDS[0]}")
b_ip=$(ip_of "${REPLICA_CIDS[1]}")
a_before=$(gradings_logged "${REPLICA_CIDS[0]}")
b_before=$(gradings_logged "${REPLICA_CIDS[1]}")
(post_grade "http://$a_ip:8080" "$TMP/answers/dup-a.json" "$DUP_KEY" >"$TMP/answers/dup-a.status") &
(post_grade "http://$b_ip:8080" "$TMP/answers/dup-b.json" "$DUP_KEY" >"$TMP/answers/dup-b.status") &
wait
sleep 0.2 # the access log is written within 10 ms
(($(gradings_logged "${REPLICA_CIDS[0]}") == a_before + 1 &&
  $(gradings_logged "${REPLICA_CIDS[1]}") == b_before + 1)) ||
  fail "the two replicas did not each answer the repeated key"
post_grade "$URL" "$TMP/answers/dup-c.json" "$DUP_KEY" >"$TMP/answers/dup-c.status"
for x in a b c; do
  status=$(cat "$TMP/answers/dup-$x.status")
  [ "$status" = 200 ] ||
    { cat "$TMP/answers/dup-$x.json" >&2; fail "repeated key ($x) answered $status"; }
  check_answer "$TMP/answers/dup-$x.json"
done
if ! cmp -s "$TMP/answers/dup-a.json" "$TMP/answers/dup-b.json" ||
  ! cmp -s "$TMP/answers/dup-a.json" "$TMP/answers/dup-c.json"; then
  fail "one Idempotency-Key got different answers from two replicas"
fi
[ "$(sql "SELECT count(*) FROM submissions WHERE idem_key = '$DUP_KEY'")" = 1 ] ||
  fail "the repeated Idempotency-Key made more than one record"
log "one Idempotency-Key at two replicas at once, then through HAProxy: one record," \
  "$(jq -r .submission_id "$TMP/answers/dup-a.json"), the same answer 3 times"

# --- 6. stop one replica while clients grade -------------------------------------------------
mkdir -p "$TMP/stream"
# stream_client N: grades until told to stop; odd N sends a new Idempotency-Key every time.
stream_client() {
  local c=$1 n=0 key deadline=$((SECONDS + 90))
  while [ ! -e "$TMP/stream.stop" ] && ((SECONDS < deadline)); do
    n=$((n + 1))
    key=
    ((c % 2)) && key=stream-$RUN_ID-$c-$n
    echo "$c $n $((c % 2)) $(post_grade "$URL" "$TMP/stream/$c-$n.json" "$key")" \
      >>"$TMP/stream/status-$c"
  done
}
answered() { cat "$TMP"/stream/status-* 2>/dev/null | wc -l; }
wait_answered() {
  local want=$1 deadline=$((SECONDS + 30))
  while (($(answered) < want)); do
    ((SECONDS < deadline)) || fail "the clients got only $(answered) answers, not $want, in 30 s"
    sleep 0.05
  done
}
VICTIM=${REPLICA_CIDS[2]}
victim_before=$(gradings_logged "$VICTIM")
for ((c = 1; c <= STREAM_CLIENTS; c++)); do
  stream_client "$c" &
  WORKERS+=($!)
done
wait_answered 30
t_stop=$SECONDS
timeout 30 docker stop -t 10 "$VICTIM" >/dev/null || fail "docker stop $VICTIM failed"
stop_seconds=$((SECONDS - t_stop))
at_stop=$(answered)
code=$(docker inspect -f '{{.State.ExitCode}}' "$VICTIM")
[ "$code" = 0 ] || { docker logs --tail 20 "$VICTIM" >&2; fail "the stopped replica exited $code"; }
# Then the rest go on without it: HAProxy drops it (DNS, health check) while they grade.
wait_servers_up $((REPLICAS - 1)) 15
wait_answered $((at_stop + 60))
touch "$TMP/stream.stop"
for pid in "${WORKERS[@]}"; do wait "$pid"; done
WORKERS=()
victim_served=$(($(gradings_logged "$VICTIM") - victim_before))
((victim_served > 0)) || fail "the stopped replica served none of the stream's gradings"

cat "$TMP"/stream/status-* >"$TMP/stream.txt"
streamed=$(wc -l <"$TMP/stream.txt")
keyed=$(awk '$3 == 1' "$TMP/stream.txt" | wc -l)
bad_keyed=$(awk '$3 == 1 && $4 != 200' "$TMP/stream.txt")
[ -z "$bad_keyed" ] || fail "gradings with an Idempotency-Key failed while a replica stopped:
$bad_keyed"
bad_open=$(awk '$3 == 0 && $4 != 200' "$TMP/stream.txt")
open_failed=0
if [ -n "$bad_open" ]; then
  open_failed=$(wc -l <<<"$bad_open")
  ! awk '$4 != 502' <<<"$bad_open" | grep -q . ||
    fail "gradings without a key failed otherwise than HAProxy's 502:
$bad_open"
  ((open_failed <= STREAM_CLIENTS / 2)) ||
    fail "$open_failed gradings without a key got 502, more than one per key-less client"
  log "note: $open_failed key-less grading(s) reached the replica as it stopped and got" \
    "HAProxy's 502 (not sent again: no Idempotency-Key)"
fi
while read -r c n _ status; do
  [ "$status" = 200 ] && check_answer "$TMP/stream/$c-$n.json"
done <"$TMP/stream.txt"
retried=$("${COMPOSE[@]}" logs --no-color haproxy |
  grep -cE ' [0-9]+/[0-9]+/[0-9]+/[0-9]+/\+?[1-9][0-9]* [0-9]+/[0-9]+ "POST ' || true)
log "replica stopped by SIGTERM in $stop_seconds s, exit 0, having served $victim_served of" \
  "$streamed gradings from $STREAM_CLIENTS clients ($keyed with keys); failed:" \
  "$open_failed; HAProxy sent $retried again (to another replica)"

# --- 7. the record: every 200's submission id, once ------------------------------------------
cat "$TMP"/answers/*.json "$TMP"/stream/*.json 2>/dev/null |
  jq -r 'select(.submission_id != null) | .submission_id' | sort >"$TMP/answered-ids"
sort -u "$TMP/answered-ids" >"$TMP/answered-distinct"
sql "SELECT id FROM submissions" | sort >"$TMP/record-ids"
answers=$(wc -l <"$TMP/answered-ids")
distinct=$(wc -l <"$TMP/answered-distinct")
records=$(wc -l <"$TMP/record-ids")
# Three answers of step 5 share one id; every other answer has its own.
((distinct == answers - 2)) ||
  fail "$answers answers 200 hold $distinct distinct ids, not $((answers - 2))"
if ! cmp -s "$TMP/answered-distinct" "$TMP/record-ids"; then
  comm -3 "$TMP/answered-distinct" "$TMP/record-ids" | head >&2
  fail "the records ($records) are not the distinct ids answered 200 ($distinct)"
fi
log "PostgreSQL holds $records records: exactly the $distinct distinct submission ids of the" \
  "$answers answers 200"

# --- 8. pg_dump, pg_restore into a new database, a server on it ------------------------------
# As docs/operations.md says, with the servers running; in the PostgreSQL container, whose
# client tools are its server's version, over TCP as the role headgrader. The new database is
# made by the superuser (the role may not create databases) and owned by the role.
t_dump=$SECONDS
pg() { docker exec -e "PGPASSWORD=$HEADGRADER_PG_PASSWORD" "$PG_CID" "$@"; }
PG_LOCAL=postgresql://headgrader@127.0.0.1:5432
pg pg_dump --format=custom --file=/tmp/headgrader.dump "$PG_LOCAL/headgrader" ||
  fail "pg_dump failed"
dump_bytes=$(docker exec "$PG_CID" stat -c %s /tmp/headgrader.dump)
docker exec "$PG_CID" createdb --owner=headgrader headgrader_restored
pg pg_restore --no-owner --exit-on-error --dbname="$PG_LOCAL/headgrader_restored" \
  /tmp/headgrader.dump || fail "pg_restore failed"
# db_rows DB: each table of the schema, its row count and the MD5 of its rows (as text, sorted),
# in one psql session (\gexec runs the query made for each table).
db_rows() {
  docker exec -i "$PG_CID" psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" <<'SQL'
SELECT format('SELECT %L || '' '' || count(*) || '' '' ||
                      md5(coalesce(string_agg(r::text, E''\n'' ORDER BY r::text), ''''))
               FROM %I r', table_name, table_name)
FROM information_schema.tables
WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
ORDER BY table_name \gexec
SQL
}
db_rows headgrader >"$TMP/rows-original"
db_rows headgrader_restored >"$TMP/rows-restored"
grep -q "^submissions $records " "$TMP/rows-original" ||
  { cat "$TMP/rows-original" >&2; fail "the original's submissions are not the $records records"; }
if ! cmp -s "$TMP/rows-original" "$TMP/rows-restored"; then
  diff "$TMP/rows-original" "$TMP/rows-restored" >&2 || true
  fail "the restored database differs from the original (table, rows, MD5 above)"
fi
tables=$(wc -l <"$TMP/rows-original")
# A server on the restored database, beside the replicas, with a staff key: its list of
# records is the ids of step 7.
mkdir -m 0777 "$TMP/keys"
docker run --rm --entrypoint headgrader -v "$TMP/keys:/keys" "$IMAGE" \
  keys add --keys /keys/keys --name restore-check --role staff >"$TMP/keys/key" \
  2>"$TMP/keys.err" || { cat "$TMP/keys.err" >&2; fail "headgrader keys add failed"; }
STAFF_KEY=$(cat "$TMP/keys/key")
network=$(docker inspect -f '{{range $name, $n := .NetworkSettings.Networks}}{{$name}}{{end}}' \
  "$PG_CID")
restored=headgrader-restored-$RUN_ID
CONTAINERS+=("$restored")
docker run -d --name "$restored" --network "$network" --read-only --cap-drop ALL \
  --tmpfs /var/lib/headgrader:size=1m -v "$TMP/keys:/keys:ro" "$IMAGE" \
  --problems /srv/headgrader/problems --address 0.0.0.0 --port 8080 --keys /keys/keys \
  --store "postgresql://headgrader:$HEADGRADER_PG_PASSWORD@postgres:5432/headgrader_restored" \
  >/dev/null
restored_url=http://$(ip_of "$restored"):8080
deadline=$((SECONDS + 30))
until [ "$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' "$restored_url/readyz")" = 200 ]; do
  ((SECONDS < deadline)) ||
    { docker logs --tail 20 "$restored" >&2; fail "the server on the restored database is not ready"; }
  sleep 0.2
done
: >"$TMP/listed-ids"
cursor=
while :; do
  curl -s --max-time 10 -H "Authorization: Bearer $STAFF_KEY" -o "$TMP/page.json" \
    "$restored_url/v1/submissions?limit=1000${cursor:+&cursor=$cursor}" ||
    fail "GET /v1/submissions on the restored database failed"
  jq -r '.submissions[].id' "$TMP/page.json" >>"$TMP/listed-ids" ||
    { head -c 500 "$TMP/page.json" >&2; fail "GET /v1/submissions: not a list of records"; }
  cursor=$(jq -r '.next_cursor // empty' "$TMP/page.json")
  [ -n "$cursor" ] || break
done
sort "$TMP/listed-ids" | cmp -s - "$TMP/record-ids" ||
  fail "the server on the restored database lists $(wc -l <"$TMP/listed-ids") records, not" \
    "the $records of the original"
log "pg_dump ($dump_bytes bytes, custom format) restored by pg_restore into a new database:" \
  "its $tables tables the original's rows; a server on it lists the $records records;" \
  "$((SECONDS - t_dump)) s"

T_END=$SECONDS
log "time: images $((T_BUILT - T0)) s (cached: the build cache only); the test after them" \
  "$((T_END - T_BUILT)) s; total $((T_END - T0)) s (the teardown follows)"
