#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Rapport custom-fields benchmark, many companies (issue 23): with 1,000
# companies each defining 50 custom fields on contacts, rapportd's start-up
# time and the cost of a contact list must stay within 10% of the same
# database without the definitions. See docs/performance.md, "Custom fields".
#
#   bench/custom-fields.sh [--engines "sqlite postgresql"] [--companies 1000] [--fields 50]
#                          [--starts 5] [--duration 8s] [--warmup 2s] [--note TEXT]
#                          [--results FILE] [--no-build]
#
# Per engine, on a fresh database: two companies registered through the API,
# A (one of the --companies that define fields) and B (none), 100 contacts
# each (POST /v1/crm/contacts, no custom values); --companies - 1 more
# companies written with SQL. Then three phases, each against the same
# database:
#   without   no definitions;
#   with      --fields definitions on contacts for each of the --companies
#             (A among them), written with SQL (custom_field_definitions, as
#             the engine writes them), of the 12 common types in turn;
#   again     the definitions deleted (the first phase again: the noise).
# In each: the lists GET /v1/crm/contacts?per_page=20 of A and of B, each
# `wrk -t1 -c1 -d<duration> --latency` after a warm-up (the latency of one
# request), then --starts start-ups of rapportd timed from the process start
# to the first 200 of /readyz (lib/startup.py, polled every 2 ms).
#
# Installs missing Debian packages (.ci/lib/deps.sh bench), builds rapportd
# (Release, build-bench/) unless --no-build, stops every process it started
# on exit. Prints Markdown tables and writes them with the machine and
# versions to bench/results/custom-fields-startup.md. Logs:
# build-bench/bench-logs/<time>-custom-fields/.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
# shellcheck source=lib/cli.sh
source "$BENCH_DIR/lib/cli.sh"
COMMAND_LINE=$(command_line bench/custom-fields.sh "$@")
usage() { usage_of "${BASH_SOURCE[0]}"; }

ENGINES="sqlite postgresql"
COMPANIES=1000
FIELDS=50
STARTS=5
DURATION=8s
WARMUP=2s
NOTE=""
RESULTS=""
BUILD=1
SERVER_THREADS=32

while (($#)); do
  case $1 in
    --engines) ENGINES=${2:?--engines needs a value}; shift 2 ;;
    --companies) COMPANIES=${2:?--companies needs a number}; shift 2 ;;
    --fields) FIELDS=${2:?--fields needs a number}; shift 2 ;;
    --starts) STARTS=${2:?--starts needs a number}; shift 2 ;;
    --duration) DURATION=${2:?--duration needs a value}; shift 2 ;;
    --warmup) WARMUP=${2:?--warmup needs a value}; shift 2 ;;
    --note) NOTE=${2?--note needs a value}; shift 2 ;;
    --results) RESULTS=${2:?--results needs a file}; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "bench/custom-fields.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
usage_error() { echo "bench/custom-fields.sh: $*" >&2; exit 2; }
RESULTS=${RESULTS:-$BENCH_DIR/results/custom-fields-startup.md}
for value in "$DURATION" "$WARMUP"; do
  [[ $value =~ ^[1-9][0-9]*(s|m)?$ ]] || usage_error "durations look like 10s or 1m, got '$value'"
done
for value in "$COMPANIES" "$FIELDS" "$STARTS"; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || usage_error "--companies, --fields and --starts are positive integers"
done
((FIELDS <= 100)) || usage_error "--fields: at most 100 per record type (decisions §14)"
for engine in $ENGINES; do
  [[ $engine == sqlite || $engine == postgresql ]] || usage_error "unknown engine '$engine'"
done

# shellcheck source=lib/servers.sh
source "$BENCH_DIR/lib/servers.sh"
# shellcheck source=lib/versions.sh
source "$BENCH_DIR/lib/versions.sh"
# shellcheck source=lib/api.sh
source "$BENCH_DIR/lib/api.sh"
# shellcheck source=lib/seed.sh
source "$BENCH_DIR/lib/seed.sh"  # db_sql, db_value

"$ROOT/.ci/lib/deps.sh" bench
BUILD_DIR="$ROOT/build-bench"
RAPPORTD="$BUILD_DIR/rapportd"
LOGS="$BUILD_DIR/bench-logs/$(date -u +%Y%m%dT%H%M%SZ)-custom-fields"
mkdir -p "$LOGS"
if ((BUILD)); then
  log "building rapportd (Release) in build-bench/; log: $LOGS/build.log"
  {
    cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DRAPPORT_BUILD_TESTS=OFF &&
      cmake --build "$BUILD_DIR" -j"$(nproc)"
  } >"$LOGS/build.log" 2>&1 || die "rapportd does not build; see $LOGS/build.log"
fi
[ -x "$RAPPORTD" ] || die "no $RAPPORTD (build it, or drop --no-build)"

bench_workdir

kv() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $1"; }

declare -A RESULT=()  # "engine|phase|what" -> "p50 p99 rps" (lists) or startup.py's line
FAILURES=()
fail() { log "FAIL: $*"; FAILURES+=("$*"); }

# measure_list ENGINE PHASE NAME TOKEN: GET /v1/crm/contacts?per_page=20 with
# TOKEN, one connection (wrk -t1 -c1), after a warm-up.
measure_list() {
  local engine=$1 phase=$2 name=$3 token=$4 file="$LOGS/list-$1-$2-$3" line
  local url="$RAPPORT_URL/v1/crm/contacts?per_page=20"
  local -a env=(BENCH_TOKEN="$token" BENCH_LUA_DIR="$BENCH_DIR/lua" BENCH_EXPECT_STATUS=200)
  env "${env[@]}" wrk -t1 -c1 -d"$WARMUP" -s "$BENCH_DIR/lua/measure.lua" "$url" \
    >"$file.warmup.txt" 2>&1 || true
  env "${env[@]}" wrk -t1 -c1 -d"$DURATION" --latency -s "$BENCH_DIR/lua/measure.lua" "$url" \
    >"$file.wrk.txt" 2>&1 || { fail "$engine/$phase/$name: wrk failed"; return 0; }
  line=$(grep '^BENCH ' "$file.wrk.txt") || { fail "$engine/$phase/$name: no summary"; return 0; }
  if (($(kv "$line" non2xx) + $(kv "$line" unexpected) > 0)); then
    fail "$engine/$phase/$name: responses other than 200 ($file.wrk.txt)"
  fi
  RESULT["$engine|$phase|list $name"]="$(kv "$line" p50_ms) $(kv "$line" p99_ms) $(kv "$line" rps)"
  log "$engine/$phase: list of $name: p50 $(kv "$line" p50_ms) ms, p99 $(kv "$line" p99_ms) ms, $(kv "$line" rps) req/s"
}

# time_starts ENGINE PHASE: STARTS start-ups of rapportd with the
# configuration start_rapportd last wrote (its port is free again).
time_starts() {
  local engine=$1 phase=$2 name="rapportd-$1" line libs
  libs="$(dirname "$RAPPORTD")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if ! line=$(python3 "$BENCH_DIR/lib/startup.py" --url "$RAPPORT_URL/readyz" --runs "$STARTS" \
    --cwd "$WORK/$name" --log "$LOGS/$name-starts.log" -- \
    env LD_LIBRARY_PATH="$libs" "$RAPPORTD" --config "$LOGS/$name.properties"); then
    fail "$engine/$phase: a start-up failed; see $LOGS/$name-starts.log"
    return 0
  fi
  RESULT["$engine|$phase|start-up"]=$line
  log "$engine/$phase: start-up $line"
}

# phase ENGINE PHASE: the lists, then the start-ups.
phase() {
  start_rapportd "rapportd-$1" "$DB_URL"
  measure_list "$1" "$2" A "$TOKEN_A"
  measure_list "$1" "$2" B "$TOKEN_B"
  stop_process "rapportd-$1"
  time_starts "$1" "$2"
}

# seed_companies: COMPANIES - 1 companies besides A, with SQL.
seed_companies() {
  local numbers
  case $ENGINE in
    sqlite) numbers="RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $((COMPANIES - 1)))" ;;
    postgresql) numbers="n(i) AS (SELECT generate_series(1, $((COMPANIES - 1))))" ;;
  esac
  local pad="printf('%017d', i)"
  [ "$ENGINE" = sqlite ] || pad="lpad(i::text, 17, '0')"
  db_sql >/dev/null <<SQL || return 1
INSERT INTO companies (id, name, created_at, updated_at)
WITH $numbers SELECT 'comp_cfseed' || $pad, 'Seeded company ' || i, 1700000000000000, 1700000000000000 FROM n;
SQL
}

# seed_definitions: FIELDS definitions on contacts for A and each seeded
# company, the 12 common types in turn (select types with 3 options).
CF_TYPES="text number decimal money boolean date datetime select multi_select email url phone"
seed_definitions() {
  local numbers fields cases="" k=0 type no=0 pad jpad
  for type in $CF_TYPES; do cases+=" WHEN $k THEN '$type'"; k=$((k + 1)); done
  case $ENGINE in
    sqlite)
      numbers="RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $((COMPANIES - 1)))"
      fields="f(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM f WHERE j < $FIELDS)"
      pad="printf('%017d', i)" jpad="printf('%03d', j)"
      ;;
    postgresql)
      numbers="n(i) AS (SELECT generate_series(0, $((COMPANIES - 1))))"
      fields="f(j) AS (SELECT generate_series(1, $FIELDS))"
      pad="lpad(i::text, 17, '0')" jpad="lpad(j::text, 3, '0')"
      no=false
      ;;
  esac
  local options='[{"value":"alpha","label":"alpha"},{"value":"beta","label":"beta"},{"value":"gamma","label":"gamma"}]'
  db_sql >/dev/null <<SQL || return 1
INSERT INTO custom_field_definitions (id, company_id, record_type, field_key, label, type,
  description, required, is_unique, options, default_value, target, created_at, updated_at)
WITH $numbers, $fields,
t AS (SELECT i, j, CASE (j - 1) % 12 $cases END AS type FROM n, f)
SELECT 'cf_seed' || $pad || $jpad,
       CASE WHEN i = 0 THEN '$COMPANY_A' ELSE 'comp_cfseed' || $pad END,
       'contact', 'field_' || $jpad, 'Field ' || j, type, NULL, $no, $no,
       CASE WHEN type IN ('select', 'multi_select') THEN '$options' ELSE '[]' END,
       NULL, NULL, 1700000000000000 + j, 1700000000000000 + j
FROM t;
SQL
  [ "$ENGINE" = sqlite ] || db_sql <<<"VACUUM ANALYZE custom_field_definitions;" >/dev/null
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
for engine in $ENGINES; do
  ENGINE=$engine
  case $engine in
    sqlite) mkdir -p "$WORK/sqlite" && DB_URL="sqlite:$WORK/sqlite/rapport.db" ;;
    postgresql) start_postgresql ;;
  esac
  start_rapportd "rapportd-$engine" "$DB_URL"
  register_user 2>>"$LOGS/prepare.log" || die "$engine: POST /v1/auth/register failed"
  TOKEN_A=$TOKEN COMPANY_A=$COMPANY_ID
  for k in $(seq 1 100); do
    api POST /v1/crm/contacts "{\"name\":\"Contact A$k\",\"email\":\"a$k@bench.example\"}" >/dev/null
  done
  register_user 2>>"$LOGS/prepare.log" || die "$engine: POST /v1/auth/register failed"
  TOKEN_B=$TOKEN
  for k in $(seq 1 100); do
    api POST /v1/crm/contacts "{\"name\":\"Contact B$k\",\"email\":\"b$k@bench.example\"}" >/dev/null
  done
  stop_process "rapportd-$engine"
  seed_companies || die "$engine: seeding the companies failed"

  phase "$engine" without
  seed_definitions || die "$engine: seeding the definitions failed"
  log "$engine: $(db_value "SELECT COUNT(*) FROM custom_field_definitions") definitions," \
    "$(db_value "SELECT COUNT(DISTINCT company_id) FROM custom_field_definitions") companies"
  phase "$engine" with
  # The fields of A are in its answers (every key, null).
  start_rapportd "rapportd-$engine" "$DB_URL"
  TOKEN=$TOKEN_A
  if [ "$(api GET "/v1/crm/contacts?per_page=1" | grep -o '"field_[0-9]*"' | sort -u | wc -l)" != "$FIELDS" ]; then
    fail "$engine: A's contacts do not answer its $FIELDS fields"
  fi
  stop_process "rapportd-$engine"
  db_sql <<<"DELETE FROM custom_field_definitions;" >/dev/null
  phase "$engine" again
  if [ "$engine" = postgresql ]; then stop_postgresql; fi
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- Report -------------------------------------------------------------------------

tables() {
  local engine what p cells base with again
  echo "| engine | measure | without definitions | with $((COMPANIES * FIELDS)) definitions | without, again | with / without | within 10% |"
  echo "|---|---|--:|--:|--:|--:|---|"
  for engine in $ENGINES; do
    for what in "start-up" "list A" "list B"; do
      cells=""
      for p in without with again; do
        if [ "$what" = start-up ]; then
          cells+=" $(kv "${RESULT[$engine|$p|$what]:-}" median)"
        else
          cells+=" $(cut -d' ' -f1 <<<"${RESULT[$engine|$p|$what]:-- - -}")"
        fi
      done
      read -r base with again <<<"$cells"
      awk -v e="$engine" -v w="$what" -v a="$base" -v b="$with" -v c="$again" 'BEGIN {
        label = w == "start-up" ? "start-up, median s (process start to /readyz 200)" : \
          w == "list A" ? "list of A (defines fields), p50 ms" : "list of B (no fields), p50 ms"
        ref = (a + c) / 2
        r = ref > 0 ? b / ref : 0
        printf "| %s | %s | %s | %s | %s | %.2f | %s |\n", e, label, a, b, c, r, (r <= 1.10 ? "yes" : "no") }'
    done
  done
  echo
  echo "with / without: the phase with the definitions over the mean of the two without."
  echo
  echo "Every figure (lists: p50 and p99 ms, req/s on one connection; start-ups: each, s):"
  echo
  echo "| engine | phase | list A p50 / p99 / req/s | list B p50 / p99 / req/s | start-ups |"
  echo "|---|---|---|---|---|"
  for engine in $ENGINES; do
    for p in without with again; do
      echo "| $engine | $p | ${RESULT[$engine|$p|list A]:-} | ${RESULT[$engine|$p|list B]:-} | $(kv "${RESULT[$engine|$p|start-up]:-}" each) |"
    done
  done
}

report() {
  local cpu memory
  cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)
  memory=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
  cat <<EOF
# Custom fields: start-up and lists with many companies' definitions

Written by \`bench/custom-fields.sh\`; re-run it rather than editing this file.
How to read it: [docs/performance.md](../../docs/performance.md), "Custom fields".

- Date: $(date -u '+%Y-%m-%d %H:%M UTC')
- Command: \`$COMMAND_LINE\`
EOF
  [ -z "$NOTE" ] || echo "- Note: **$NOTE**"
  cat <<EOF
- Machine: $(uname -srm); CPU ${cpu:-unknown}; $(nproc) cores (nproc); ${memory} memory
- Load average (1, 5, 15 min): $LOAD_START at the start, $LOAD_END at the end
- Data: $COMPANIES companies defining $FIELDS fields each on contacts (A among them),
  company B without fields; 100 contacts each in A and B (no custom values: A's answer
  carries its $FIELDS keys, null)
- Lists: \`wrk -t1 -c1 -d$DURATION --latency\` after $WARMUP, GET /v1/crm/contacts?per_page=20;
  start-ups: $STARTS per phase (lib/startup.py)
- Versions: rapportd $(rapport_version), Release; PostgreSQL $(postgres_version); SQLite $(pkg_version libsqlite3-0)

EOF
  tables
}

echo
tables
if ((${#FAILURES[@]})); then
  report >"$LOGS/results.md"
  printf '  - %s\n' "${FAILURES[@]}" >&2
  echo "bench/custom-fields.sh: FAILED; results in $LOGS/results.md" >&2
  exit 1
fi
mkdir -p "$(dirname "$RESULTS")"
report >"$RESULTS"
log "results written to ${RESULTS#"$ROOT"/}; logs in $LOGS"
