#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Rapport webhooks benchmark: deliveries per second to a local HTTPS receiver,
# and the time from the API write to the first attempt under load, on each
# storage engine. See docs/performance.md, "Webhooks".
#
#   bench/webhooks.sh [--duration 10s] [--engines "sqlite postgresql"] [--workers 4]
#                     [--deliveries 20000] [--webhooks "1 4"] [--connections 32]
#                     [--latency-connections "32 4"] [--warmup 2s] [--drain-timeout 300]
#                     [--receiver-host localhost|127.0.0.1] [--perf] [--note TEXT]
#                     [--results FILE] [--no-build]
#
# Per engine, against one rapportd (webhooks.allow_private_targets = true,
# webhooks.ca_file = the receiver's throw-away CA, log.level warn) and a
# private nginx answering `204` over TLS (lib/receiver.sh):
#
# 1. Latency: one webhook subscribed to crm.contact.created, active, while wrk
#    creates contacts (POST /v1/crm/contacts) for --duration at full speed
#    (--connections) and under a lighter load (4 connections); then, from the
#    database, first attempt start minus delivery created_at for every
#    delivery written during the measurement: p50, p90, p99, max.
# 2. Throughput: for each count K of --webhooks, K webhooks subscribed to
#    crm.contact.created and --deliveries / K contacts created; the
#    deliveries wait (rapportd runs with a first retry delay of one day),
#    the webhooks are paused and resumed (PATCH is_active false, then true:
#    every pending delivery due now, workers woken), and the drain is timed
#    until no delivery is pending; every one must end `success`.
#
# Installs missing Debian packages (.ci/lib/deps.sh bench), builds rapportd
# (Release, build-bench/), runs everything on 127.0.0.1 and stops every
# process it started on exit, failure and Ctrl-C included. Prints Markdown
# tables and, when every check passed, writes them with the machine and
# versions to bench/results/webhooks.md. Exits non-zero when a check failed
# (a create that did not answer 201, a ping or a delivery that did not end
# `success`, a drain longer than --drain-timeout); missing the goal (2,000
# deliveries/s, p99 under 100 ms) is reported, not a failure.
# --perf records `perf record -g` of rapportd during the first drain of each
# engine (report in the log folder). --receiver-host 127.0.0.1: webhook URLs
# with the address instead of the name localhost (no name resolution per
# attempt). Logs: build-bench/bench-logs/<time>-webhooks/.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
# shellcheck source=lib/cli.sh
source "$BENCH_DIR/lib/cli.sh"
# The command as typed, for the results file.
COMMAND_LINE=$(command_line bench/webhooks.sh "$@")
usage() { usage_of "${BASH_SOURCE[0]}"; }

# --- Options --------------------------------------------------------------------

DURATION=10s           # the latency measurement (wrk creating contacts)
WARMUP=2s              # unrecorded wrk run before it
CONNECTIONS=32         # wrk keep-alive connections creating contacts
LATENCY_CONNECTIONS="" # the latency runs' connections; default "CONNECTIONS 4"
ENGINES="sqlite postgresql"
WORKERS=4              # rapportd webhooks.workers
DELIVERIES=20000       # deliveries per drain
FANOUT="1 4"           # webhooks per drain (each gets DELIVERIES / K contacts' events)
DRAIN_TIMEOUT=300      # seconds a drain may take before the run fails
PERF=0
RECEIVER_HOST=localhost  # the webhooks' URL host (lib/receiver.sh)
NOTE=""
RESULTS=""
BUILD=1
WRK_THREADS=2

while (($#)); do
  case $1 in
    --duration) DURATION=${2:?--duration needs a value}; shift 2 ;;
    --warmup) WARMUP=${2:?--warmup needs a value}; shift 2 ;;
    --connections) CONNECTIONS=${2:?--connections needs a value}; shift 2 ;;
    --latency-connections) LATENCY_CONNECTIONS=${2:?--latency-connections needs a value}; shift 2 ;;
    --engines) ENGINES=${2?--engines needs a value}; shift 2 ;;
    --workers) WORKERS=${2:?--workers needs a value}; shift 2 ;;
    --deliveries) DELIVERIES=${2:?--deliveries needs a value}; shift 2 ;;
    --webhooks) FANOUT=${2?--webhooks needs webhook counts, e.g. "1 4"}; shift 2 ;;
    --drain-timeout) DRAIN_TIMEOUT=${2:?--drain-timeout needs seconds}; shift 2 ;;
    --perf) PERF=1; shift ;;
    --receiver-host) RECEIVER_HOST=${2:?--receiver-host needs localhost or 127.0.0.1}; shift 2 ;;
    --note) NOTE=${2?--note needs a value}; shift 2 ;;
    --results) RESULTS=${2:?--results needs a file}; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "bench/webhooks.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

usage_error() { echo "bench/webhooks.sh: $*" >&2; exit 2; }
RESULTS=${RESULTS:-$BENCH_DIR/results/webhooks.md}
for value in "$DURATION" "$WARMUP"; do
  [[ $value =~ ^[1-9][0-9]*(s|m)?$ ]] || usage_error "durations look like 10s or 1m, got '$value'"
done
[[ $CONNECTIONS =~ ^[1-9][0-9]*$ ]] || usage_error "--connections must be a positive integer"
((CONNECTIONS % WRK_THREADS == 0)) || usage_error "--connections must be a multiple of $WRK_THREADS"
if [ -z "$LATENCY_CONNECTIONS" ]; then
  LATENCY_CONNECTIONS=$CONNECTIONS
  ((CONNECTIONS == 4)) || LATENCY_CONNECTIONS+=" 4"
fi
for c in $LATENCY_CONNECTIONS; do
  if ! [[ $c =~ ^[1-9][0-9]*$ ]] || ((c > CONNECTIONS)); then
    usage_error "--latency-connections takes connection counts up to --connections, got '$c'"
  fi
done
if ! [[ $WORKERS =~ ^[1-9][0-9]*$ ]] || ((WORKERS > 64)); then usage_error "--workers is 1 to 64"; fi
[[ $DELIVERIES =~ ^[1-9][0-9]*$ ]] || usage_error "--deliveries must be a positive integer"
[[ $DRAIN_TIMEOUT =~ ^[1-9][0-9]*$ ]] || usage_error "--drain-timeout is in seconds"
for k in $FANOUT; do
  if ! [[ $k =~ ^[1-9][0-9]?$ ]] || ((DELIVERIES / k == 0)); then
    usage_error "--webhooks takes webhook counts of 1 to 99 (at most --deliveries), e.g. \"1 4\", got '$k'"
  fi
done
[[ $RECEIVER_HOST == localhost || $RECEIVER_HOST == 127.0.0.1 ]] ||
  usage_error "--receiver-host is localhost or 127.0.0.1 (the certificate's names)"
[ "$ENGINES" = none ] && usage_error "--engines needs sqlite, postgresql or both"
[ -n "$ENGINES" ] || usage_error "--engines needs sqlite, postgresql or both"
for engine in $ENGINES; do
  [[ $engine == sqlite || $engine == postgresql ]] || usage_error "unknown engine '$engine'"
done
# One HTTP worker thread per keep-alive connection (stack-facts.md) plus
# spares, and a database session for each of them and each delivery worker
# (start_rapportd sets database.pool_size = server.threads).
SERVER_THREADS=$((CONNECTIONS + 8 + WORKERS))

# shellcheck source=lib/servers.sh
source "$BENCH_DIR/lib/servers.sh"
# shellcheck source=lib/versions.sh
source "$BENCH_DIR/lib/versions.sh"
# shellcheck source=lib/receiver.sh
source "$BENCH_DIR/lib/receiver.sh"
# shellcheck source=lib/api.sh
source "$BENCH_DIR/lib/api.sh"
# shellcheck source=lib/seed.sh
source "$BENCH_DIR/lib/seed.sh"  # db_sql

# --- Packages and build -----------------------------------------------------------

"$ROOT/.ci/lib/deps.sh" bench
command -v openssl >/dev/null || die "openssl is missing (apt-get install openssl)"
if ((PERF)) && ! command -v perf >/dev/null; then
  die "--perf needs perf (apt-get install linux-perf)"
fi
BUILD_DIR="$ROOT/build-bench"
RAPPORTD="$BUILD_DIR/rapportd"
mkdir -p "$BUILD_DIR"
LOGS="$BUILD_DIR/bench-logs/$(date -u +%Y%m%dT%H%M%SZ)-webhooks"
mkdir -p "$LOGS"
if ((BUILD)); then
  log "building rapportd (Release) in build-bench/; log: $LOGS/build.log"
  {
    cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DRAPPORT_BUILD_TESTS=OFF &&
      cmake --build "$BUILD_DIR" -j"$(nproc)"
  } >"$LOGS/build.log" 2>&1 || {
    grep -m 10 -E 'error|Error' "$LOGS/build.log" >&2 || tail -n 20 "$LOGS/build.log" >&2
    die "rapportd does not build; see $LOGS/build.log"
  }
fi
[ -x "$RAPPORTD" ] || die "no $RAPPORTD (build it, or drop --no-build)"
[ -e "$BUILD_DIR/modules/rapport_webhooks.so" ] ||
  die "no webhooks module in $BUILD_DIR/modules (build it, or drop --no-build)"

# --- Clean-up: no server outlives the run -------------------------------------------

WORK=$(mktemp -d /tmp/rapport-bench.XXXXXX)
WRK_PID=""
PERF_PID=""
TOKEN=""
BACKLOG_COUNT=0
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stop_wrk
  stop_perf
  stop_all
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# stop_wrk: the background wrk of a backlog, if one runs (SIGINT: wrk stops
# its threads and prints its summary).
stop_wrk() {
  [ -n "$WRK_PID" ] || return 0
  kill -INT "$WRK_PID" 2>/dev/null || true
  wait "$WRK_PID" 2>/dev/null || true
  WRK_PID=""
}

# stop_perf: the background perf record, if one runs (SIGINT: it writes its data).
stop_perf() {
  [ -n "$PERF_PID" ] || return 0
  kill -INT "$PERF_PID" 2>/dev/null || true
  wait "$PERF_PID" 2>/dev/null || true
  PERF_PID=""
}

# --- Helpers ----------------------------------------------------------------------

FAILURES=()
fail() {
  log "FAIL: $*"
  FAILURES+=("$*")
}

# kv LINE KEY: the value of KEY=value in a BENCH line.
kv() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }

now_us() { date +%s%6N; }

# The contact each request creates; "{seq}" is unique per request (lua/requests.lua).
CONTACT_BODY='{"name":"Hook Contact {seq}","email":"Hook.{seq}@Bench.Example","phone":"+44 20 7946 0000","job_title":"Buyer","tags":["lead","bench"]}'
EVENT=crm.contact.created
# The delivery schedule: the module's default, and the backlog's (first
# attempt a day after the event: the deliveries wait for the resume).
DEFAULT_SCHEDULE="0,60,300,1800,7200,21600"
BACKLOG_SCHEDULE="86400,60,300,1800,7200,21600"

# rapportd_config SCHEDULE: the webhooks keys (start_rapportd appends them).
# secrets.key_file is the run's, so the second rapportd of an engine opens
# the secrets the first sealed.
rapportd_config() {
  RAPPORTD_EXTRA_CONFIG="# bench/webhooks.sh
webhooks.allow_private_targets = true
webhooks.ca_file = $RECEIVER_CA
webhooks.workers = $WORKERS
webhooks.retry_schedule = $1
secrets.key_file = $WORK/secret.key"
}

# create_webhook PATH: a webhook of the run's company to RECEIVER_URL/PATH,
# subscribed to EVENT; prints its id.
create_webhook() {
  local answer id
  answer=$(api POST /v1/webhooks "{\"url\":\"$RECEIVER_URL/$1\",\"events\":[\"$EVENT\"]}") || return 1
  id=$(printf '%s' "$answer" | json_string id)
  [[ $id == whk_* ]] || { echo "no webhook id in: $answer" >&2; return 1; }
  echo "$id"
}

# set_active ID true|false: PATCH is_active.
set_active() { api PATCH "/v1/webhooks/$1" "{\"is_active\":$2}" >/dev/null; }

# ping_check ID: POST /webhooks/ID/ping must deliver (TLS, CA, receiver, guard).
ping_check() {
  local answer
  # No body (curl sends Content-Length: 0 with --data-binary '').
  answer=$(curl -sS --max-time 30 -X POST -H "Authorization: Bearer $TOKEN" --data-binary '' \
    "$RAPPORT_URL/v1/webhooks/$1/ping") || return 1
  if [ "$(printf '%s' "$answer" | json_string status)" != success ]; then
    echo "ping of $1 did not succeed: $answer" >&2
    return 1
  fi
}

# in_list ID...: "'a','b'" for an SQL IN list (ids never hold quotes).
in_list() {
  local out="" id
  for id; do out+="${out:+,}'$id'"; done
  printf '%s' "$out"
}

# sql_count SQL: the single number SQL returns, read while rapportd writes.
# SQLite: a reader of a WAL database may briefly get SQLITE_BUSY, hence
# .timeout; any failure is retried, then fails the caller.
sql_count() {
  local attempt value
  for attempt in 1 2 3 4 5; do
    case $ENGINE in
      sqlite) value=$(sqlite3 -batch -noheader -cmd ".timeout 5000" "${DB_URL#sqlite:}" "$1;" 2>>"$LOGS/sql.log") ;;
      postgresql) value=$(psql "$DB_URL" -X -q -A -t -v ON_ERROR_STOP=1 -c "$1" 2>>"$LOGS/sql.log") ;;
    esac && [[ $value =~ ^-?[0-9]+$ ]] && { echo "$value"; return 0; }
    log "query failed (attempt $attempt): $1"
    sleep 0.5
  done
  return 1
}

# deliveries_where IDS...: the SQL condition of the EVENT deliveries of these
# webhooks (not their pings).
deliveries_where() {
  echo "company_id = '$COMPANY_ID' AND webhook_id IN ($(in_list "$@")) AND event = '$EVENT'"
}

# cpu_ticks PID: user + system clock ticks PID used so far (0 when gone).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# machine_ticks: "busy total" clock ticks of every core so far (/proc/stat).
machine_ticks() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat; }
# database_pids: PostgreSQL's postmaster and its children (none for SQLite,
# which runs inside rapportd).
database_pids() {
  local data pid
  [ -n "$PG_STATE" ] && [ -f "$PG_STATE/datadir" ] || return 0
  data=$(cat "$PG_STATE/datadir")
  pid=$(head -n 1 "$data/cluster/postmaster.pid" 2>/dev/null) || return 0
  echo "$pid"
  pgrep -P "$pid" 2>/dev/null || true
}
# receiver_pids: the receiver's nginx master and workers.
receiver_pids() {
  local master=${STARTED_PIDS[receiver]}
  echo "$master"
  pgrep -P "$master" 2>/dev/null || true
}

# wrk_contacts LABEL DURATION CONNECTIONS: wrk creating contacts; the
# summary line (BENCH ...) on stdout. Every response must be 201.
wrk_contacts() {
  local label=$1 duration=$2 connections=$3 file="$LOGS/$1.wrk.txt" threads=$WRK_THREADS
  ((connections % threads == 0)) || threads=1
  env BENCH_METHOD=POST BENCH_TOKEN="$TOKEN" BENCH_BODY="$CONTACT_BODY" BENCH_EXPECT_STATUS=201 \
    BENCH_LUA_DIR="$BENCH_DIR/lua" BENCH_NONCE="$label-$RANDOM" \
    wrk -t"$threads" -c"$connections" -d"$duration" --timeout 5s --latency \
    -s "$BENCH_DIR/lua/measure.lua" "$RAPPORT_URL/v1/crm/contacts" >"$file" 2>&1 || true
  grep '^BENCH ' "$file" || { echo "BENCH requests=0 rps=0 unexpected=0 non2xx=0"; return 1; }
}

# check_wrk LABEL LINE: every response 201, no socket error.
check_wrk() {
  local label=$1 line=$2 e errors=0
  for e in connect read write timeout; do errors=$((errors + $(kv "$line" "$e"))); done
  if (($(kv "$line" unexpected) + $(kv "$line" non2xx) > 0)); then
    fail "$label: $(kv "$line" unexpected) of $(kv "$line" requests) contact creates did not answer 201"
  fi
  # Socket errors after SIGINT are the requests wrk dropped in flight: only
  # a time-out counts then.
  if [ "${3:-}" = interrupted ]; then errors=$(kv "$line" timeout); fi
  ((errors == 0)) || fail "$label: wrk socket errors: $line"
}

# percentiles FILE: "n p50 p90 p99 max" (nearest rank) of the integers in
# FILE, one a line, in ms from microseconds.
percentiles() {
  sort -n "$1" | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "0 - - - -"; exit }
    split("50 90 99", p, " ")
    out = NR
    for (i = 1; i <= 3; i++) { r = int((p[i] * NR + 99) / 100); if (r < 1) r = 1; out = out " " sprintf("%.1f", v[r] / 1000) }
    print out " " sprintf("%.1f", v[NR] / 1000) }'
}

# --- Results --------------------------------------------------------------------

# Latency rows: "engine|connections|creates/s|create p50|create p99|deliveries|p50|p90|p99|max|retried|ok|attempted/s"
LATENCY_ROWS=()
# Drain rows: "engine|webhooks|deliveries|seconds|rate|attempt span s|resume ms|rapportd cpu|receiver cpu|machine busy|ok|database cpu"
DRAIN_ROWS=()
PERF_FILES=()

# --- 1. Latency under load -----------------------------------------------------------

# latency_run ENGINE CONNECTIONS: one active webhook while wrk creates
# contacts on CONNECTIONS connections for DURATION.
latency_run() {
  local engine=$1 connections=$2 label="latency-$1-c$2" hook line t0 t1 where pending deadline stats
  hook=$(create_webhook "$label") || { fail "$engine: POST /v1/webhooks failed"; return 0; }
  ping_check "$hook" 2>>"$LOGS/prepare.log" ||
    { fail "$engine: the ping of the receiver failed; see $LOGS/prepare.log"; return 0; }
  log "$label: webhook $hook active; warm-up $WARMUP, measure $DURATION (wrk -c$connections)"
  wrk_contacts "$label-warmup" "$WARMUP" "$connections" >/dev/null || true
  t0=$(now_us)
  line=$(wrk_contacts "$label" "$DURATION" "$connections") ||
    { fail "$label: wrk failed; see $LOGS/$label.wrk.txt"; return 0; }
  t1=$(now_us)
  check_wrk "$label" "$line"
  where="$(deliveries_where "$hook") AND created_at >= $t0 AND created_at < $t1"
  # The deliveries written during the load that no worker attempted yet are
  # the latest ones; wait for them, they are part of the distribution.
  deadline=$((SECONDS + DRAIN_TIMEOUT))
  while :; do
    pending=$(sql_count "SELECT COUNT(*) FROM webhook_deliveries WHERE $where AND attempts = 0")
    ((pending == 0)) && break
    if ((SECONDS >= deadline)); then
      fail "$label: $pending deliveries still unattempted after $DRAIN_TIMEOUT s"
      return 0
    fi
    sleep 0.2
  done
  # last_attempt_at after one attempt is that attempt's start; created_at
  # is the event's time, inside the writing transaction (before its commit).
  db_sql <<<"SELECT last_attempt_at - created_at FROM webhook_deliveries WHERE $where AND attempts = 1;" \
    >"$LOGS/$label.us"
  stats=$(percentiles "$LOGS/$label.us")
  local retried not_success n p50 p90 p99 max
  read -r n p50 p90 p99 max <<<"$stats"
  retried=$(sql_count "SELECT COUNT(*) FROM webhook_deliveries WHERE $where AND attempts > 1")
  # Deliveries the workers attempted during the load, of all they had: a
  # rate below the create rate means the workers fell behind.
  local attempted
  attempted=$(sql_count "SELECT COUNT(*) FROM webhook_deliveries WHERE $(deliveries_where "$hook")
    AND last_attempt_at >= $t0 AND last_attempt_at < $t1")
  attempted=$(awk -v n="$attempted" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / ((b - a) / 1e6) }')
  not_success=$(sql_count "SELECT COUNT(*) FROM webhook_deliveries WHERE $where AND status <> 'success'")
  local ok=1
  if ((not_success > 0)); then
    fail "$label: $not_success deliveries did not end success (see $LOGS/rapportd-$engine-latency.log)"
    ok=0
  fi
  ((n > 0)) || { fail "$label: no delivery was written during the measurement"; ok=0; }
  LATENCY_ROWS+=("$engine|$connections|$(kv "$line" rps)|$(kv "$line" p50_ms)|$(kv "$line" p99_ms)|$n|$p50|$p90|$p99|$max|$retried|$ok|$attempted")
  log "$label: $(kv "$line" rps) contacts/s created (p99 $(kv "$line" p99_ms) ms), $attempted deliveries/s attempted during the load, $n deliveries; write -> first attempt" \
    "p50 $p50 ms, p90 $p90 ms, p99 $p99 ms, max $max ms; $retried attempted more than once"
  # Out of the way of the drains.
  set_active "$hook" false || fail "$engine: pausing the latency webhook failed"
}

# --- 2. Throughput (drain) --------------------------------------------------------------

# backlog WHERE TARGET LABEL: wrk creates contacts until TARGET deliveries
# match WHERE, then is interrupted; waits until the count stops moving
# (requests in flight when wrk stopped still commit). Sets BACKLOG_COUNT.
backlog() {
  local where=$1 target=$2 label=$3 count previous=-1 line
  local file="$LOGS/$label.wrk.txt" deadline=$((SECONDS + DRAIN_TIMEOUT * 2))
  env BENCH_METHOD=POST BENCH_TOKEN="$TOKEN" BENCH_BODY="$CONTACT_BODY" BENCH_EXPECT_STATUS=201 \
    BENCH_LUA_DIR="$BENCH_DIR/lua" BENCH_NONCE="$label-$RANDOM" \
    wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d60m --timeout 5s \
    -s "$BENCH_DIR/lua/measure.lua" "$RAPPORT_URL/v1/crm/contacts" >"$file" 2>&1 &
  WRK_PID=$!
  while :; do
    sleep 0.2
    count=$(sql_count "SELECT COUNT(*) FROM webhook_deliveries WHERE $where")
    ((count >= target)) && break
    if ! kill -0 "$WRK_PID" 2>/dev/null || ((SECONDS >= deadline)); then
      stop_wrk
      fail "$label: wrk stopped at $count of $target deliveries: $(tail -n 2 "$file")"
      return 1
    fi
  done
  stop_wrk
  while ((count != previous)); do
    previous=$count
    sleep 0.5
    count=$(sql_count "SELECT COUNT(*) FROM webhook_deliveries WHERE $where")
  done
  line=$(grep '^BENCH ' "$file") || line="BENCH requests=0 unexpected=0 non2xx=0 connect=0 read=0 write=0 timeout=0"
  check_wrk "$label" "$line" interrupted
  BACKLOG_COUNT=$count
}

# drain_run ENGINE K: K webhooks, DELIVERIES / K contacts, pause, resume, drain.
drain_run() {
  local engine=$1 k=$2 i label="drain-$1-$2" hooks=() where count pending waiting
  local t_resume t_resumed t_done resume_ms seconds rate span
  local hook
  for ((i = 1; i <= k; i++)); do
    hook=$(create_webhook "drain-$k-$i") || { fail "$label: POST /v1/webhooks failed"; return 0; }
    hooks+=("$hook")
  done
  for i in "${hooks[@]}"; do
    ping_check "$i" 2>>"$LOGS/prepare.log" || { fail "$label: the ping failed"; return 0; }
  done
  where=$(deliveries_where "${hooks[@]}")
  log "$label: $k webhook(s), creating $((DELIVERIES / k)) contacts (wrk -c$CONNECTIONS) for $DELIVERIES deliveries"
  backlog "$where" $(((DELIVERIES / k) * k)) "$label-backlog" || return 0
  count=$BACKLOG_COUNT
  waiting=$(sql_count "SELECT COUNT(*) FROM webhook_deliveries WHERE $where AND status = 'pending' AND attempts = 0")
  if ((waiting != count)); then
    fail "$label: $waiting of $count deliveries waiting before the resume (the one-day first delay did not hold)"
    return 0
  fi
  for i in "${hooks[@]}"; do set_active "$i" false || { fail "$label: pause failed"; return 0; }; done

  # The drain: CPU counters, perf (first drain of the engine), resume, poll.
  local -a receiver=() r0=() r1=() database=() d0=() d1=()
  mapfile -t receiver < <(receiver_pids)
  mapfile -t database < <(database_pids)
  local pid=${STARTED_PIDS["rapportd-$engine-drain"]} c0 c1 m0 m1
  if ((PERF)) && [ "$k" = "$(awk '{ print $1 }' <<<"$FANOUT")" ]; then
    perf record -g -F 499 -p "$pid" -o "$LOGS/perf-$engine.data" >"$LOGS/perf-$engine.log" 2>&1 &
    PERF_PID=$!
    sleep 1  # perf attaches
  fi
  c0=$(cpu_ticks "$pid") m0=$(machine_ticks)
  for i in "${receiver[@]}"; do r0+=("$(cpu_ticks "$i")"); done
  for i in "${database[@]}"; do d0+=("$(cpu_ticks "$i")"); done
  log "$label: $count deliveries waiting; resuming"
  t_resume=$(now_us)
  for i in "${hooks[@]}"; do set_active "$i" true || { fail "$label: resume failed"; return 0; }; done
  t_resumed=$(now_us)
  local deadline=$((SECONDS + DRAIN_TIMEOUT))
  while :; do
    pending=$(sql_count "SELECT COUNT(*) FROM webhook_deliveries WHERE $where AND status = 'pending'")
    ((pending == 0)) && break
    if ((SECONDS >= deadline)); then
      stop_perf
      fail "$label: $pending of $count deliveries still pending after $DRAIN_TIMEOUT s"
      return 0
    fi
    sleep 0.1
  done
  t_done=$(now_us)
  c1=$(cpu_ticks "$pid") m1=$(machine_ticks)
  for i in "${receiver[@]}"; do r1+=("$(cpu_ticks "$i")"); done
  for i in "${database[@]}"; do d1+=("$(cpu_ticks "$i")"); done
  if [ -n "$PERF_PID" ]; then
    stop_perf
    perf report -i "$LOGS/perf-$engine.data" --stdio --no-children --sort symbol -g none \
      --percent-limit 0.5 >"$LOGS/perf-$engine-symbols.txt" 2>/dev/null || true
    perf report -i "$LOGS/perf-$engine.data" --stdio --no-children --sort dso -g none \
      --percent-limit 0.5 >"$LOGS/perf-$engine-dso.txt" 2>/dev/null || true
    perf report -i "$LOGS/perf-$engine.data" --stdio --children --sort symbol -g none \
      --percent-limit 2 >"$LOGS/perf-$engine-children.txt" 2>/dev/null || true
    PERF_FILES+=("$LOGS/perf-$engine-symbols.txt")
  fi

  local success attempts ticks rcpu=0 dcpu=0 cpu busy m0b m0t m1b m1t
  success=$(sql_count "SELECT COUNT(*) FROM webhook_deliveries WHERE $where AND status = 'success'")
  attempts=$(sql_count "SELECT COALESCE(SUM(attempts), 0) FROM webhook_deliveries WHERE $where")
  span=$(sql_count "SELECT MAX(last_attempt_at) - MIN(last_attempt_at) FROM webhook_deliveries WHERE $where")
  ticks=$(getconf CLK_TCK)
  for i in "${!receiver[@]}"; do rcpu=$((rcpu + ${r1[$i]:-0} - ${r0[$i]:-0})); done
  # A backend that ended during the drain reads 0 at the end: not counted.
  for i in "${!database[@]}"; do
    if ((${d1[$i]:-0} >= ${d0[$i]:-0})); then dcpu=$((dcpu + ${d1[$i]:-0} - ${d0[$i]:-0})); fi
  done
  seconds=$(awk -v a="$t_resume" -v b="$t_done" 'BEGIN { printf "%.2f", (b - a) / 1e6 }')
  rate=$(awk -v n="$count" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')
  resume_ms=$(awk -v a="$t_resume" -v b="$t_resumed" 'BEGIN { printf "%.0f", (b - a) / 1e3 }')
  span=$(awk -v s="$span" 'BEGIN { printf "%.2f", s / 1e6 }')
  cpu=$(awk -v c=$((c1 - c0)) -v t="$ticks" -v s="$seconds" 'BEGIN { printf "%.0f%%", c / t / s * 100 }')
  rcpu=$(awk -v c="$rcpu" -v t="$ticks" -v s="$seconds" 'BEGIN { printf "%.0f%%", c / t / s * 100 }')
  if ((${#database[@]})); then
    dcpu=$(awk -v c="$dcpu" -v t="$ticks" -v s="$seconds" 'BEGIN { printf "%.0f%%", c / t / s * 100 }')
  else
    dcpu="in rapportd"
  fi
  read -r m0b m0t <<<"$m0"
  read -r m1b m1t <<<"$m1"
  busy=$(awk -v b=$((m1b - m0b)) -v t=$((m1t - m0t)) 'BEGIN { if (t > 0) printf "%.0f%%", b / t * 100; else print "-" }')
  local ok=1
  if ((success != count || attempts != count)); then
    fail "$label: $success of $count deliveries success, $attempts attempts (expected one each)"
    ok=0
  fi
  DRAIN_ROWS+=("$engine|$k|$count|$seconds|$rate|$span|$resume_ms|$cpu|$rcpu|$busy|$ok|$dcpu")
  log "$label: $count deliveries in $seconds s = $rate deliveries/s (resume PATCH $resume_ms ms;" \
    "first to last attempt $span s); CPU rapportd $cpu, database $dcpu, receiver $rcpu, machine $busy busy"
  # Out of the way of the next drain.
  for i in "${hooks[@]}"; do set_active "$i" false || true; done
}

# --- The run ------------------------------------------------------------------------

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
log "logs: $LOGS"
start_receiver receiver

for engine in $ENGINES; do
  case $engine in
    sqlite) DB_URL="sqlite:$WORK/rapport-sqlite/rapport.db" ;;
    postgresql) start_postgresql ;;
  esac
  ENGINE=$engine
  rapportd_config "$DEFAULT_SCHEDULE"
  start_rapportd "rapportd-$engine-latency" "$DB_URL"
  if ! register_user 2>>"$LOGS/prepare.log"; then
    fail "$engine: POST /v1/auth/register failed; see $LOGS/prepare.log"
  else
    for connections in $LATENCY_CONNECTIONS; do latency_run "$engine" "$connections"; done
  fi
  stop_process "rapportd-$engine-latency"
  if [ -n "$TOKEN" ]; then
    # The same database, with deliveries due a day after their event.
    rapportd_config "$BACKLOG_SCHEDULE"
    start_rapportd "rapportd-$engine-drain" "$DB_URL"
    for k in $FANOUT; do drain_run "$engine" "$k"; done
    stop_process "rapportd-$engine-drain"
  fi
  if [ "$engine" = postgresql ]; then stop_postgresql; fi
done
stop_all
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- Report -------------------------------------------------------------------------

drain_table() {
  echo "| engine | webhooks | deliveries | drain s | deliveries/s | first to last attempt s | resume PATCH ms | CPU rapportd | CPU database | CPU receiver | machine busy |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  local row
  local -a f
  for row in "${DRAIN_ROWS[@]}"; do
    IFS='|' read -r -a f <<<"$row"
    printf '| %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "${f[0]}" \
      "$([ "${f[10]}" = 1 ] || echo ' **FAILED**')" "${f[1]}" "${f[2]}" "${f[3]}" "${f[4]}" \
      "${f[5]}" "${f[6]}" "${f[7]}" "${f[11]}" "${f[8]}" "${f[9]}"
  done
}

latency_table() {
  echo "| engine | wrk connections | contacts created/s | create p50 / p99 ms | deliveries attempted/s | deliveries | p50 ms | p90 ms | p99 ms | max ms | attempted more than once |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  local row
  local -a f
  for row in "${LATENCY_ROWS[@]}"; do
    IFS='|' read -r -a f <<<"$row"
    printf '| %s%s | %s | %.0f | %.1f / %.1f | %s | %s | %s | %s | %s | %s | %s |\n' "${f[0]}" \
      "$([ "${f[11]}" = 1 ] || echo ' **FAILED**')" "${f[1]}" "${f[2]}" "${f[3]}" "${f[4]}" \
      "${f[12]}" "${f[5]}" "${f[6]}" "${f[7]}" "${f[8]}" "${f[9]}" "${f[10]}"
  done
}

# The goal of issue 7: >= 2,000 deliveries/s (one webhook) and p99 < 100 ms.
goals() {
  local row
  local -a f
  for row in "${DRAIN_ROWS[@]}"; do
    IFS='|' read -r -a f <<<"$row"
    awk -v e="${f[0]}" -v k="${f[1]}" -v r="${f[4]}" 'BEGIN {
      printf "Goal (>= 2,000 deliveries/s), %s, %s webhook(s): %d/s, %s\n", e, k, r,
        (r >= 2000 ? "met" : sprintf("NOT met (%.0f%% of it)", r / 20)) }'
  done
  for row in "${LATENCY_ROWS[@]}"; do
    IFS='|' read -r -a f <<<"$row"
    awk -v e="${f[0]}" -v c="${f[1]}" -v p="${f[8]}" 'BEGIN {
      if (p == "-") { printf "Goal (p99 write -> first attempt < 100 ms), %s, wrk -c%s: not measured\n", e, c; exit }
      printf "Goal (p99 write -> first attempt < 100 ms), %s, wrk -c%s: %s ms, %s\n", e, c, p,
        (p + 0 < 100 ? "met" : sprintf("NOT met (%.1fx the goal)", p / 100)) }'
  done
}

report() {
  local cpu memory
  cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)
  memory=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
  cat <<EOF
# Rapport webhooks benchmark results

Written by \`bench/webhooks.sh\`; re-run it rather than editing this file.
How to read it: [docs/performance.md](../../docs/performance.md#webhooks).

- Date: $(date -u '+%Y-%m-%d %H:%M UTC')
- Command: \`$COMMAND_LINE\`
EOF
  [ -z "$NOTE" ] || echo "- Note: **$NOTE**"
  cat <<EOF
- Machine: $(uname -srm); CPU ${cpu:-unknown}; $(nproc) cores (nproc); ${memory} memory
- Load average (1, 5, 15 min): $LOAD_START at the start, $LOAD_END at the end
- rapportd: webhooks.workers $WORKERS; server.threads and database.pool_size $SERVER_THREADS;
  log.level warn; webhooks.allow_private_targets true; webhooks.ca_file the run's throw-away CA;
  webhooks.retry_schedule \`$DEFAULT_SCHEDULE\` (latency), \`$BACKLOG_SCHEDULE\` (drains)
- Receiver: nginx, 1 worker, TLS (ECDSA P-256 certificate for localhost and 127.0.0.1),
  keep-alive, \`return 204\`; webhook URLs \`$RECEIVER_URL/...\`
- Contacts created with \`wrk -t$WRK_THREADS -c$CONNECTIONS\` (POST /v1/crm/contacts, every answer 201)
- Versions: rapportd $(rapport_version), Release, g++ $(g++ -dumpfullversion 2>/dev/null || echo "?");
  nginx $(nginx -v 2>&1 | sed 's|.*nginx/||'); wrk $(pkg_version wrk); OpenSSL $(pkg_version openssl);
  PostgreSQL $(postgres_version); SQLite $(pkg_version libsqlite3-0); Poco $(pkg_version libpoco-dev)

## Throughput: $DELIVERIES deliveries waiting, resumed, drained

Drain: from the resume (PATCH is_active true) until no delivery is pending;
deliveries/s = deliveries / drain. CPU: of one core, during the drain
(machine busy: of all $(nproc) cores, whatever ran).

$(drain_table)

## Latency: API write -> first attempt, webhook active while wrk creates contacts for $DURATION

Delivery created_at (the event's time, in the writing transaction) to the
start of its first attempt, every delivery written during the measurement;
at full speed (wrk -c$CONNECTIONS) and under a lighter load.

$(latency_table)

$(goals)
EOF
}

echo
drain_table
echo
latency_table
echo
goals
if ((${#PERF_FILES[@]})); then
  echo
  for file in "${PERF_FILES[@]}"; do
    echo "perf, top symbols during the drain ($file):"
    grep -v -e '^#' -e '^ *$' "$file" | sed 's/[ -]*$//' | head -n 15
  done
fi

if ((${#FAILURES[@]})); then
  report >"$LOGS/results.md"
  echo
  echo "bench/webhooks.sh: FAILED (${#FAILURES[@]}):" >&2
  printf '  - %s\n' "${FAILURES[@]}" >&2
  echo "Results of this failed run: $LOGS/results.md ($RESULTS left unchanged)." >&2
  exit 1
fi
mkdir -p "$(dirname "$RESULTS")"
report >"$RESULTS"
log "results written to ${RESULTS#"$ROOT"/}; logs in $LOGS"
