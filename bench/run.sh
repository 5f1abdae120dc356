#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Rapport benchmark: wrk against rapportd on each storage engine, beside an
# nginx `return 200` ceiling measured in the same run, with a check that every
# keep-alive connection was served. See docs/performance.md.
#
#   bench/run.sh [--duration 10s] [--connections 32] [--engines "sqlite postgresql"]
#                [--scenarios "versions me"] [--warmup 2s] [--check-duration 5s]
#                [--max-gap 1000] [--server-threads N] [--note TEXT]
#                [--results FILE] [--no-build]
#
# Installs missing Debian packages (.ci/lib/deps.sh bench), builds rapportd
# (Release, build-bench/), starts a private nginx, rapportd and a throw-away
# PostgreSQL on 127.0.0.1, and stops all of them on exit, failure included.
# Prints a Markdown table and, when every check passed, writes it with the
# machine and versions to bench/results/latest.md. Exits non-zero when a
# scenario had non-2xx responses, socket errors, or a connection that was not
# served. Logs: build-bench/bench-logs/<time>/.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
# The command as typed, for the results file; arguments quoted only when needed.
COMMAND_LINE="bench/run.sh"
for arg in "$@"; do
  if [[ $arg =~ ^[A-Za-z0-9_./:=,+-]+$ ]]; then
    COMMAND_LINE+=" $arg"
  else
    COMMAND_LINE+=" '${arg//\'/\'\\\'\'}'"
  fi
done

usage() { sed -n '3,/^set -euo/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; }

# --- Options --------------------------------------------------------------------

DURATION=10s          # each measured wrk run
WARMUP=2s             # unrecorded wrk run before each measurement (caches, pools, threads)
CONNECTIONS=32        # wrk keep-alive connections
ENGINES="sqlite postgresql"  # "none": the nginx ceiling only (no build, no rapportd)
ONLY_SCENARIOS=""     # default: every scenario of scenarios.sh
CHECK_DURATION=5s     # the per-connection check after each measurement
MAX_GAP_MS=1000       # longest wait without a response allowed on one connection
SERVER_THREADS=""     # rapportd server.threads; default: connections + 8
NOTE=""               # recorded with the figures, e.g. "preliminary (machine busy)"
RESULTS="$BENCH_DIR/results/latest.md"
BUILD=1
WRK_THREADS=2         # load generator threads for the measurements (2 cores here)

while (($#)); do
  case $1 in
    --duration) DURATION=${2:?--duration needs a value}; shift 2 ;;
    --warmup) WARMUP=${2:?--warmup needs a value}; shift 2 ;;
    --connections) CONNECTIONS=${2:?--connections needs a value}; shift 2 ;;
    --engines) ENGINES=${2?--engines needs a value}; shift 2 ;;
    --scenarios) ONLY_SCENARIOS=${2:?--scenarios needs a value}; shift 2 ;;
    --check-duration) CHECK_DURATION=${2:?--check-duration needs a value}; shift 2 ;;
    --max-gap) MAX_GAP_MS=${2:?--max-gap needs milliseconds}; shift 2 ;;
    --server-threads) SERVER_THREADS=${2:?--server-threads needs a value}; shift 2 ;;
    --note) NOTE=${2?--note needs a value}; shift 2 ;;
    --results) RESULTS=${2:?--results needs a file}; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "bench/run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

usage_error() { echo "bench/run.sh: $*" >&2; exit 2; }
# Bounded runs only: wrk durations are a number of seconds or minutes.
for value in "$DURATION" "$WARMUP" "$CHECK_DURATION"; do
  [[ $value =~ ^[1-9][0-9]*(s|m)?$ ]] || usage_error "durations look like 10s or 1m, got '$value'"
done
[[ $CONNECTIONS =~ ^[1-9][0-9]*$ ]] || usage_error "--connections must be a positive integer"
# wrk gives each thread connections/threads connections and drops the rest.
((CONNECTIONS % WRK_THREADS == 0)) || usage_error "--connections must be a multiple of $WRK_THREADS"
[[ $MAX_GAP_MS =~ ^[1-9][0-9]*$ ]] || usage_error "--max-gap is in milliseconds"
SERVER_THREADS=${SERVER_THREADS:-$((CONNECTIONS + 8))}
[[ $SERVER_THREADS =~ ^[1-9][0-9]*$ ]] || usage_error "--server-threads must be a positive integer"
[ "$ENGINES" = none ] && ENGINES=""
for engine in $ENGINES; do
  [[ $engine == sqlite || $engine == postgresql ]] || usage_error "unknown engine '$engine'"
done

# shellcheck source=lib/servers.sh
source "$BENCH_DIR/lib/servers.sh"
# shellcheck source=lib/api.sh
source "$BENCH_DIR/lib/api.sh"
# shellcheck source=scenarios.sh
source "$BENCH_DIR/scenarios.sh"

# Validate --scenarios against the table before spending minutes on a build.
scenario_names=()
for line in "${SCENARIOS[@]}"; do
  read -r name _ <<<"$line"
  scenario_names+=("$name")
done
for name in $ONLY_SCENARIOS; do
  [[ " ${scenario_names[*]} " == *" $name "* ]] ||
    usage_error "unknown scenario '$name' (known: ${scenario_names[*]})"
done

# --- Packages and build -----------------------------------------------------------

"$ROOT/.ci/lib/deps.sh" bench
BUILD_DIR="$ROOT/build-bench"
RAPPORTD="$BUILD_DIR/rapportd"
mkdir -p "$BUILD_DIR"
LOGS="$BUILD_DIR/bench-logs/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$LOGS"
if [ -n "$ENGINES" ] && ((BUILD)); then
  log "building rapportd (Release) in build-bench/; log: $LOGS/build.log"
  {
    cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DRAPPORT_BUILD_TESTS=OFF &&
      cmake --build "$BUILD_DIR" -j"$(nproc)"
  } >"$LOGS/build.log" 2>&1 || {
    grep -m 10 -E 'error|Error' "$LOGS/build.log" >&2 || tail -n 20 "$LOGS/build.log" >&2
    die "rapportd does not build; see $LOGS/build.log"
  }
fi
if [ -n "$ENGINES" ] && [ ! -x "$RAPPORTD" ]; then
  die "no $RAPPORTD (build it, or drop --no-build)"
fi

# --- Clean-up: no server outlives the run -------------------------------------------

WORK=$(mktemp -d /tmp/rapport-bench.XXXXXX)
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stop_all
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- Measurement ------------------------------------------------------------------

# kv LINE KEY: the value of KEY=value in a BENCH/CHECK line.
kv() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }

# Results, one entry per measured row.
ROW_NAME=() ROW_ENGINE=() ROW_RPS=() ROW_P50=() ROW_P99=() ROW_SERVED=() ROW_OK=()
FAILURES=()

fail() {
  log "FAIL: $*"
  FAILURES+=("$*")
}

# load_test NAME ENGINE URL: warm-up, measurement (wrk -t2 -cN --latency) and
# per-connection check (wrk -tN -cN, one connection per wrk thread) of one
# request, described by the SCN_* variables. Records a row; a failed check is
# recorded in FAILURES, it does not stop the run.
load_test() {
  local name=$1 engine=$2 url=$3
  local label="$name/$engine" file="$LOGS/$name-$engine"
  local -a env=(BENCH_METHOD="$SCN_METHOD" BENCH_TOKEN="$SCN_TOKEN" BENCH_BODY="$SCN_BODY"
                BENCH_MAX_GAP_MS="$SCN_MAX_GAP_MS")
  local -a wrk_common=(--timeout "$SCN_TIMEOUT")
  local ok=1 line check

  log "$label: warm-up $WARMUP, measure $DURATION (wrk -t$WRK_THREADS -c$CONNECTIONS)"
  env "${env[@]}" wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$WARMUP" "${wrk_common[@]}" \
    -s "$BENCH_DIR/lua/measure.lua" "$url" >"$file.warmup.txt" 2>&1 || true
  if ! env "${env[@]}" wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$DURATION" "${wrk_common[@]}" \
    --latency -s "$BENCH_DIR/lua/measure.lua" "$url" >"$file.wrk.txt" 2>&1; then
    fail "$label: wrk failed: $(tail -n 1 "$file.wrk.txt")"
    return 0
  fi
  line=$(grep '^BENCH ' "$file.wrk.txt") || { fail "$label: no summary in $file.wrk.txt"; return 0; }

  # wrk counts 4xx/5xx as "status" errors; 1xx/3xx are caught by the check below.
  if (($(kv "$line" non2xx) > 0)); then
    fail "$label: $(kv "$line" non2xx) of $(kv "$line" requests) responses were 4xx/5xx"
    ok=0
  fi
  local e errors=0
  for e in connect read write timeout; do errors=$((errors + $(kv "$line" "$e"))); done
  if ((errors > 0)); then
    fail "$label: socket errors: connect $(kv "$line" connect), read $(kv "$line" read)," \
      "write $(kv "$line" write), timeout $(kv "$line" timeout) (responses slower than $SCN_TIMEOUT)"
    ok=0
  fi

  log "$label: connection check $CHECK_DURATION (wrk -t$CONNECTIONS -c$CONNECTIONS)"
  env "${env[@]}" wrk -t"$CONNECTIONS" -c"$CONNECTIONS" -d"$CHECK_DURATION" "${wrk_common[@]}" \
    -s "$BENCH_DIR/lua/connections.lua" "$url" >"$file.check.txt" 2>&1 || true
  check=$(grep '^CHECK ' "$file.check.txt") || {
    fail "$label: the connection check did not run: $(tail -n 1 "$file.check.txt")"
    check="CHECK served=? "
    ok=0
  }
  if [ "$(kv "$check" served)" != "$CONNECTIONS" ]; then
    [ "$(kv "$check" served)" = "?" ] ||
      fail "$label: $(kv "$check" starved) of $CONNECTIONS keep-alive connections got no" \
        "response in $CHECK_DURATION (starved; wrk connection numbers $(kv "$check" starved_ids))" \
        "- server.threads is $SERVER_THREADS"
    ok=0
  elif (($(kv "$check" stalled) > 0)); then
    fail "$label: $(kv "$check" stalled) of $CONNECTIONS connections waited more than" \
      "$SCN_MAX_GAP_MS ms for a response (worst $(kv "$check" worst_gap_ms) ms)"
    ok=0
  fi
  if [ "$(kv "$check" served)" != "?" ]; then
    local bad=$(($(kv "$check" non2xx) + $(kv "$check" connect) + $(kv "$check" read) +
      $(kv "$check" write) + $(kv "$check" timeout)))
    if ((bad > 0)); then
      fail "$label: connection check: non-2xx $(kv "$check" non2xx), socket errors connect" \
        "$(kv "$check" connect), read $(kv "$check" read), write $(kv "$check" write)," \
        "timeout $(kv "$check" timeout)"
      ok=0
    fi
  fi

  ROW_NAME+=("$name") ROW_ENGINE+=("$engine") ROW_RPS+=("$(kv "$line" rps)")
  ROW_P50+=("$(kv "$line" p50_ms)") ROW_P99+=("$(kv "$line" p99_ms)")
  ROW_SERVED+=("$(kv "$check" served)/$CONNECTIONS") ROW_OK+=("$ok")
  log "$label: $(kv "$line" rps) req/s, p50 $(kv "$line" p50_ms) ms, p99 $(kv "$line" p99_ms) ms," \
    "connections served $(kv "$check" served)/$CONNECTIONS (min/median/max responses per" \
    "connection $(kv "$check" min)/$(kv "$check" median)/$(kv "$check" max))"
}

# measure_ceiling LABEL: the nginx `return 200` ceiling with the same wrk parameters.
measure_ceiling() {
  SCN_METHOD=GET SCN_TOKEN="" SCN_BODY="" SCN_MAX_GAP_MS=$MAX_GAP_MS SCN_TIMEOUT=2s
  load_test "$1" nginx "$NGINX_URL"
}

# run_scenarios ENGINE: every selected scenario against the running rapportd.
run_scenarios() {
  local engine=$1 line name access method path body status
  for line in "${SCENARIOS[@]}"; do
    read -r name access method path body <<<"$line"
    [ -z "$ONLY_SCENARIOS" ] || [[ " $ONLY_SCENARIOS " == *" $name "* ]] || continue
    SCN_METHOD=$method SCN_PATH=$path SCN_BODY=${body:-} SCN_MAX_GAP_MS=$MAX_GAP_MS SCN_TIMEOUT=2s
    case $access in
      public) SCN_TOKEN="" ;;
      token) SCN_TOKEN=$TOKEN ;;
      *) die "scenario $name: access must be public or token, got '$access'" ;;
    esac
    if declare -F "prepare_$name" >/dev/null && ! "prepare_$name" >>"$LOGS/prepare.log" 2>&1; then
      fail "$name/$engine: prepare_$name failed; see $LOGS/prepare.log"
      continue
    fi
    # One request first: a wrong path or token is reported as such, not as
    # millions of non-2xx responses.
    local -a args=(-sS --max-time 10 -o "$WORK/answer" -w '%{http_code}' -X "$SCN_METHOD")
    [ -n "$SCN_TOKEN" ] && args+=(-H "Authorization: Bearer $SCN_TOKEN")
    [ -n "$SCN_BODY" ] && args+=(-H 'Content-Type: application/json' --data-binary "$SCN_BODY")
    status=$(curl "${args[@]}" "$RAPPORT_URL$SCN_PATH") || status="no answer"
    if [[ $status != 2?? ]]; then
      fail "$name/$engine: $SCN_METHOD $SCN_PATH answered $status: $(head -c 300 "$WORK/answer" 2>/dev/null)"
      continue
    fi
    load_test "$name" "$engine" "$RAPPORT_URL$SCN_PATH"
  done
}

# --- The run ------------------------------------------------------------------------

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
log "logs: $LOGS"

start_nginx nginx
measure_ceiling "nginx-start"

for engine in $ENGINES; do
  case $engine in
    sqlite) DB_URL="sqlite:$WORK/rapport-sqlite/rapport.db" ;;
    postgresql) start_postgresql ;;
  esac
  start_rapportd "rapportd-$engine" "$DB_URL"
  if register_user 2>>"$LOGS/prepare.log"; then
    run_scenarios "$engine"
  else
    fail "$engine: POST /v1/auth/register failed; see $LOGS/prepare.log"
  fi
  # One server at a time: the next engine is measured on a quiet machine.
  stop_process "rapportd-$engine"
  if [ "$engine" = postgresql ]; then stop_postgresql; fi
done

# Measured again at the end: the two ceilings differing shows a noisy machine.
measure_ceiling "nginx-end"
stop_all
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- Report -------------------------------------------------------------------------

# The ceiling is the mean of the nginx runs that passed; their spread (highest
# over lowest, minus one) says how much the machine's load moved meanwhile.
ceilings=$(
  for i in "${!ROW_NAME[@]}"; do
    if [ "${ROW_ENGINE[$i]}" = nginx ] && [ "${ROW_OK[$i]}" = 1 ]; then echo "${ROW_RPS[$i]}"; fi
  done
)
CEILING=$(awk '{ s += $1; n++ } END { if (n) printf "%.1f", s / n; else print 0 }' <<<"$ceilings")
SPREAD=$(awk 'NF { if (!n++ || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
  END { if (n > 1 && lo > 0) printf "%.0f", (hi / lo - 1) * 100; else print 0 }' <<<"$ceilings")

ceiling_line() {
  printf 'Ceiling: %.0f req/s, the mean of the nginx runs (spread %s%%); "x nginx" divides by it.\n' \
    "$CEILING" "$SPREAD"
  if ((SPREAD > 15)); then
    echo "The nginx runs differ by more than 15%: the machine was busy, ratios are rough."
  fi
}

ratio() { awk -v r="$1" -v c="$CEILING" 'BEGIN { if (c > 0) printf "%.2fx", r / c; else print "-" }'; }

table() {
  echo "| scenario | engine | req/s | p50 ms | p99 ms | x nginx | connections served |"
  echo "|---|---|--:|--:|--:|--:|--:|"
  local i name
  for i in "${!ROW_NAME[@]}"; do
    name=${ROW_NAME[$i]}
    case $name in
      nginx-start) name="nginx \`return 200\` (start)" ;;
      nginx-end) name="nginx \`return 200\` (end)" ;;
    esac
    [ "${ROW_OK[$i]}" = 1 ] || name="$name **FAILED**"
    printf '| %s | %s | %.0f | %.2f | %.2f | %s | %s |\n' "$name" "${ROW_ENGINE[$i]}" \
      "${ROW_RPS[$i]}" "${ROW_P50[$i]}" "${ROW_P99[$i]}" "$(ratio "${ROW_RPS[$i]}")" \
      "${ROW_SERVED[$i]}"
  done
}

# Goal kept by every change: an authenticated read on SQLite at 0.25x or more
# of the ceiling. Reported, not enforced: on a busy machine it is noise.
goal() {
  local i
  for i in "${!ROW_NAME[@]}"; do
    if [ "${ROW_NAME[$i]}" = me ] && [ "${ROW_ENGINE[$i]}" = sqlite ]; then
      awk -v r="${ROW_RPS[$i]}" -v c="$CEILING" 'BEGIN {
        if (c <= 0) { print "Goal (me on sqlite >= 0.25x nginx): no ceiling measured"; exit }
        printf "Goal (me on sqlite >= 0.25x nginx): %.2fx, %s\n", r / c, (r / c >= 0.25 ? "met" : "NOT met") }'
      return 0
    fi
  done
  echo "Goal (me on sqlite >= 0.25x nginx): not measured in this run"
}

pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "not installed"; }

rapport_version() {
  local rev
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) || rev="no commit yet"
  # --no-optional-locks: a read-only status that does not refresh the index.
  if [ -n "$(git -C "$ROOT" --no-optional-locks status --porcelain 2>/dev/null | head -c 1)" ]; then
    rev+=" (uncommitted changes)"
  fi
  echo "$rev"
}

postgres_version() {
  local bin
  bin=$(find /usr/lib/postgresql -maxdepth 3 -name postgres -path '*/bin/*' 2>/dev/null | sort -V | tail -n 1)
  if [ -n "$bin" ]; then "$bin" --version | sed 's/^postgres (PostgreSQL) //'; else echo "not installed"; fi
}

report() {
  local cpu memory
  cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)
  memory=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
  cat <<EOF
# Rapport benchmark results

Written by \`bench/run.sh\`; re-run it rather than editing this file.
How to read it: [docs/performance.md](../../docs/performance.md).

- Date: $(date -u '+%Y-%m-%d %H:%M UTC')
- Command: \`$COMMAND_LINE\`
EOF
  [ -z "$NOTE" ] || echo "- Note: **$NOTE**"
  cat <<EOF
- Machine: $(uname -srm); CPU ${cpu:-unknown}; $(nproc) cores (nproc); ${memory} memory
- Load average (1, 5, 15 min): $LOAD_START at the start, $LOAD_END at the end
- Load: \`wrk -t$WRK_THREADS -c$CONNECTIONS -d$DURATION --latency\` after a $WARMUP warm-up
- Connection check: \`wrk -t$CONNECTIONS -c$CONNECTIONS -d$CHECK_DURATION\`, every connection
  answered, none waiting more than $MAX_GAP_MS ms
- rapportd: server.threads $SERVER_THREADS, database.pool_size $SERVER_THREADS, log.level warn
- nginx: worker_processes auto, access_log off, \`return 200 "ok"\`
- Versions: rapportd $(rapport_version), Release, g++ $(g++ -dumpfullversion 2>/dev/null || echo "?");
  nginx $(nginx -v 2>&1 | sed 's|.*nginx/||'); wrk $(pkg_version wrk);
  PostgreSQL $(postgres_version); SQLite $(pkg_version libsqlite3-0); Poco $(pkg_version libpoco-dev)

$(table)

$(ceiling_line)
$(goal)
EOF
}

echo
table
echo
ceiling_line
goal

if ((${#FAILURES[@]})); then
  report >"$LOGS/results.md"
  echo
  echo "bench/run.sh: FAILED (${#FAILURES[@]}):" >&2
  printf '  - %s\n' "${FAILURES[@]}" >&2
  echo "Results of this failed run: $LOGS/results.md ($RESULTS left unchanged)." >&2
  exit 1
fi
mkdir -p "$(dirname "$RESULTS")"
report >"$RESULTS"
log "results written to ${RESULTS#"$ROOT"/}; logs in $LOGS"
