# shellcheck shell=bash
# The limit benchmark of bench/run.sh --limits (issue 25; bench/limits/README.md):
# the statements of one contact create run straight on each engine, without
# rapportd, on the database the contact_create scenario just wrote to.
# Sourced by run.sh, which sets ROOT, BENCH_DIR, BUILD_DIR, LOGS, WORK,
# DURATION, CONNECTIONS, WRK_THREADS, ENGINE and DB_URL.
#
#   SQLite:      bench/limits/sqlite_limit.cpp, one writer, batches of
#                min(CONNECTIONS, 64) creates (64: rapportd's largest group
#                commit), synchronous FULL (database.sqlite_synchronous's default)
#   PostgreSQL:  pgbench -M prepared -c CONNECTIONS -j WRK_THREADS -T DURATION
#                with bench/limits/contact_create.sql, beside one client
#                running bench/limits/events_number.sql (the numbering passes)
# Each for one company (every create for the same tenant, as in contact_create)
# and for LIMIT_COMPANIES companies; then one company once more without the
# trigger that costs most: on SQLite the FTS5 one (on a copy of the
# database), on PostgreSQL the count triggers (their row locks).

LIMIT_COMPANIES=1000  # the "many companies" case
LIMIT_CREATES=20000   # creates per SQLite measurement (after LIMIT_WARMUP)
LIMIT_WARMUP=2000
SQLITE_LIMIT=""       # the built program

declare -A LIMIT_RATE=()   # "engine|case" -> creates/s
declare -A LIMIT_STMTS=()  # "engine|case" -> "name=us name=us ..." (per create; PostgreSQL: latency)
declare -A LIMIT_WAITS=()  # "postgresql|case" -> what pgbench's sessions were doing (pg_waits)
declare -A LIMIT_PASSES=() # "postgresql|case" -> event numbering passes/s beside the creates
LIMIT_CASES=()             # "engine|case" in the order measured

# build_sqlite_limit: compiles bench/limits/sqlite_limit.cpp (g++, the
# system's libsqlite3, which rapportd links too) into BUILD_DIR.
build_sqlite_limit() {
  SQLITE_LIMIT="$BUILD_DIR/sqlite_limit"
  g++ -std=c++20 -O2 -Wall -Wextra -o "$SQLITE_LIMIT" "$BENCH_DIR/limits/sqlite_limit.cpp" \
    -lsqlite3 >"$LOGS/sqlite_limit-build.log" 2>&1 ||
    die "bench/limits/sqlite_limit.cpp does not build; see $LOGS/sqlite_limit-build.log"
}

# limit_record ENGINE CASE RATE STATEMENTS
limit_record() {
  LIMIT_CASES+=("$1|$2")
  LIMIT_RATE["$1|$2"]=$3
  LIMIT_STMTS["$1|$2"]=$4
  log "limit $1, $2: $3 creates/s"
}

# sqlite_limit_case CASE DB ARGS...: one run of sqlite_limit on DB.
sqlite_limit_case() {
  local label=$1 db=$2 file line statements
  shift 2
  file="$LOGS/limit-sqlite-$(tr -c 'a-z0-9\n' '-' <<<"$label" | tr -s '-').txt"
  local batch=$((CONNECTIONS < 64 ? CONNECTIONS : 64))
  log "limit sqlite, $label: $LIMIT_CREATES creates in batches of $batch ($file)"
  if ! "$SQLITE_LIMIT" --db "$db" --creates "$LIMIT_CREATES" --warmup "$LIMIT_WARMUP" \
    --batch "$batch" --synchronous full "$@" >"$file" 2>&1; then
    fail "limit sqlite, $label: sqlite_limit failed: $(tail -n 1 "$file")"
    return 0
  fi
  line=$(grep '^LIMIT ' "$file")
  statements=$(sed -n 's/^LIMIT_STATEMENT name=\([^ ]*\) us_per_create=\([^ ]*\).*/\1=\2/p' "$file" |
    tr '\n' ' ')
  limit_record sqlite "$label" "$(kv "$line" creates_per_s)" "${statements% }"
}

# sqlite_limits: the SQLite cases, on rapportd's database (rapportd stopped).
sqlite_limits() {
  local db=${DB_URL#sqlite:}
  sqlite_limit_case "one company" "$db" --companies 1
  sqlite_limit_case "$LIMIT_COMPANIES companies" "$db" --companies "$LIMIT_COMPANIES"
  # The same database without the search index's trigger: what FTS5 costs.
  local copy="$WORK/limit-without-fts.db"
  sqlite3 "$db" "VACUUM INTO '$copy'" >>"$LOGS/prepare.log" 2>&1 || {
    fail "limit sqlite: could not copy $db"
    return 0
  }
  sqlite_limit_case "one company, no FTS5 trigger" "$copy" --companies 1 \
    --drop-trigger contacts_search_insert
  rm -f "$copy"*
}

# The names of contact_create.sql's statements, in order (README.md).
PG_LIMIT_STATEMENTS=(begin custom_fields_lock custom_fields_select contact_insert tags_insert
  event_insert webhooks_select commit)

# pg_waits FILE SECONDS: what the pgbench sessions wait on, sampled from
# pg_stat_activity every 0.25 s for SECONDS (after 1 s of warm-up), one line
# per session and sample: "wait_event_type:wait_event|statement"
# (":cpu" when running; Client:ClientRead is waiting for the client).
pg_waits() {
  local file=$1 samples=$((($2 - 2) * 4))
  sleep 1
  for ((k = 0; k < samples; k++)); do
    psql "$DB_URL" -Atc "SELECT coalesce(wait_event_type, '') || ':' || coalesce(wait_event, 'cpu')
      || '|' || left(regexp_replace(rtrim(query, ';'), '\s+', ' ', 'g'), 28)
      FROM pg_stat_activity WHERE application_name = 'pgbench' AND state <> 'idle'" >>"$file" 2>/dev/null
    sleep 0.25
  done
}

# pg_limit_case CASE COMPANIES: pgbench with contact_create.sql on DB_URL.
pg_limit_case() {
  local label=$1 companies=$2 file rate statements k=0 latency
  file="$LOGS/limit-postgresql-$(tr -c 'a-z0-9\n' '-' <<<"$label" | tr -s '-').txt"
  log "limit postgresql, $label: pgbench -c$CONNECTIONS -j$WRK_THREADS -T$(seconds_of "$DURATION") ($file)"
  : >"${file%.txt}-waits.txt"
  pg_waits "${file%.txt}-waits.txt" "$(seconds_of "$DURATION")" &
  STARTED_PIDS["pg-waits"]=$!
  # The event numbering beside the creates: one client, one pass after
  # another, as rapportd's one pass in flight (events_number.sql).
  pgbench -n -M prepared -c 1 -T "$(seconds_of "$DURATION")" -f "$BENCH_DIR/limits/events_number.sql" \
    "$DB_URL" >"${file%.txt}-numbering.txt" 2>&1 &
  STARTED_PIDS["pg-numbering"]=$!
  if ! pgbench -n -M prepared -r -c "$CONNECTIONS" -j "$WRK_THREADS" -T "$(seconds_of "$DURATION")" \
    -D companies="$companies" -f "$BENCH_DIR/limits/contact_create.sql" "$DB_URL" >"$file" 2>&1; then
    stop_process pg-waits
    stop_process pg-numbering
    fail "limit postgresql, $label: pgbench failed: $(tail -n 1 "$file")"
    return 0
  fi
  wait "${STARTED_PIDS["pg-numbering"]}" 2>/dev/null || true
  unset "STARTED_PIDS[pg-numbering]"
  LIMIT_PASSES["postgresql|$label"]=$(sed -n 's/^tps = \([0-9]*\).*/\1/p' "${file%.txt}-numbering.txt")
  wait "${STARTED_PIDS["pg-waits"]}" 2>/dev/null || true
  unset "STARTED_PIDS[pg-waits]"
  # The five most frequent, as "share% wait|statement" (of all samples).
  LIMIT_WAITS["postgresql|$label"]=$(sort "${file%.txt}-waits.txt" | uniq -c | sort -rn |
    awk -v n="$(wc -l <"${file%.txt}-waits.txt")" 'NR <= 5 && n > 0 {
      c = $1; $1 = ""; sub(/^ /, ""); printf "%s%.0f%% %s", (NR > 1 ? "; " : ""), 100 * c / n, $0 }')
  if grep -q '^number of failed transactions: [1-9]' "$file"; then
    fail "limit postgresql, $label: transactions failed ($file)"
  fi
  rate=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$file")
  # -r: "  latency_ms  failures  statement" per command; the \set lines first.
  statements=""
  while read -r latency; do
    statements+="${PG_LIMIT_STATEMENTS[$k]:-statement$k}=$(awk -v l="$latency" 'BEGIN { printf "%.2f", l * 1000 }') "
    k=$((k + 1))
  done < <(sed -n '/^statement latencies/,$p' "$file" | awk '$3 != "\\set" && $1 ~ /^[0-9.]+$/ { print $1 }')
  limit_record postgresql "$label" "$rate" "${statements% }"
}

pg_limits() {
  pg_limit_case "one company" 1
  pg_limit_case "$LIMIT_COMPANIES companies" "$LIMIT_COMPANIES"
  # One company again without the count triggers, whose upserts lock one of
  # the company's 8 counter rows (contacts) and 2 x 8 (tags) until the
  # commit: what that queue costs. The database is thrown away after the run.
  local counters="ALTER TABLE contacts DISABLE TRIGGER contact_counts_track;
    ALTER TABLE contact_tags DISABLE TRIGGER contact_tag_counts_track;"
  if psql "$DB_URL" -v ON_ERROR_STOP=1 -qc "$counters" >>"$LOGS/prepare.log" 2>&1; then
    pg_limit_case "one company, no count triggers" 1
  else
    fail "limit postgresql: could not disable the count triggers; see $LOGS/prepare.log"
  fi
}

# pg_durability: how the throw-away cluster stores commits (BENCH_PG_DURABLE).
pg_durability() {
  if [ "${BENCH_PG_DURABLE:-0}" = 1 ]; then
    echo ".ci/lib/pg.sh with PG_DURABLE=1: fsync, synchronous_commit and full page writes on"
  else
    echo ".ci/lib/pg.sh: fsync, synchronous_commit and full page writes off"
  fi
}

# limits_setup: the report's lines on how the limits were measured.
limits_setup() {
  cat <<EOF
- Limit benchmark (bench/lib/limits.sh): rapportd's contact_create first (the scenario, on a
  fresh database), then, with rapportd stopped, on the same database:
  SQLite: bench/limits/sqlite_limit.cpp, $LIMIT_WARMUP creates of warm-up then $LIMIT_CREATES,
  one writer connection, batches of $((CONNECTIONS < 64 ? CONNECTIONS : 64)) creates (one SAVEPOINT each, one COMMIT per
  batch), synchronous FULL, WAL;
  PostgreSQL: \`pgbench -n -M prepared -r -c $CONNECTIONS -j $WRK_THREADS -T $(seconds_of "$DURATION")\`
  with bench/limits/contact_create.sql on the throw-away cluster ($(pg_durability)),
  $CONNECTIONS clients as rapportd's database.pool_size is $SERVER_THREADS, beside one client
  running bench/limits/events_number.sql (the event numbering passes, one after another)
EOF
}

# limits_tables: the ratio of rapportd's contact_create to each engine's
# limit (one company, like the scenario), then every limit with its
# statements (microseconds per create).
limits_tables() {
  local engine key i rapportd p99 limit name us entry total
  echo "| engine | rapportd contact_create req/s | p99 ms | limit creates/s (one company) | rapportd / limit |"
  echo "|---|--:|--:|--:|--:|"
  for engine in $ENGINES; do
    rapportd="" limit=${LIMIT_RATE["$engine|one company"]:-}
    for i in "${!ROW_NAME[@]}"; do
      if [ "${ROW_NAME[$i]}" = contact_create ] && [ "${ROW_ENGINE[$i]}" = "$engine" ]; then
        rapportd=${ROW_RPS[$i]} p99=${ROW_P99[$i]}
      fi
    done
    awk -v e="$engine" -v r="${rapportd:-0}" -v p="${p99:-0}" -v l="${limit:-0}" 'BEGIN {
      printf "| %s | %s | %s | %s | %s |\n", e, (r > 0 ? sprintf("%.0f", r) : "-"),
        (r > 0 ? sprintf("%.1f", p) : "-"), (l > 0 ? sprintf("%.0f", l) : "-"),
        (r > 0 && l > 0 ? sprintf("%.2fx", r / l) : "-") }'
  done
  echo
  echo "| engine | limit | creates/s | rapportd / limit |"
  echo "|---|---|--:|--:|"
  for key in "${LIMIT_CASES[@]}"; do
    engine=${key%%|*} rapportd=0
    for i in "${!ROW_NAME[@]}"; do
      if [ "${ROW_NAME[$i]}" = contact_create ] && [ "${ROW_ENGINE[$i]}" = "$engine" ]; then
        rapportd=${ROW_RPS[$i]}
      fi
    done
    awk -v e="$engine" -v c="${key#*|}" -v r="$rapportd" -v l="${LIMIT_RATE[$key]}" 'BEGIN {
      printf "| %s | %s | %.0f | %s |\n", e, c, l, (r > 0 && l > 0 ? sprintf("%.2fx", r / l) : "-") }'
  done
  echo
  echo "Each limit, and the time of each statement in it (SQLite: microseconds per create,"
  echo "summed over the run, triggers in the statement that fires them, BEGIN and COMMIT"
  echo "shared by the batch; PostgreSQL: pgbench -r's mean latency per statement, in"
  echo "microseconds, waits for locks included):"
  echo
  for key in "${LIMIT_CASES[@]}"; do
    printf '%s, %s: **%.0f creates/s**\n\n' "${key%%|*}" "${key#*|}" "${LIMIT_RATE[$key]}"
    echo "| statement | µs | share |"
    echo "|---|--:|--:|"
    total=0
    for entry in ${LIMIT_STMTS[$key]}; do total=$(awk -v t="$total" -v u="${entry#*=}" 'BEGIN { print t + u }'); done
    for entry in ${LIMIT_STMTS[$key]}; do
      name=${entry%%=*} us=${entry#*=}
      awk -v n="$name" -v u="$us" -v t="$total" 'BEGIN { printf "| %s | %.1f | %.0f%% |\n", n, u, (t > 0 ? 100 * u / t : 0) }'
    done
    echo
    if [ -n "${LIMIT_PASSES[$key]:-}" ]; then
      echo "Event numbering beside it (events_number.sql, one client): ${LIMIT_PASSES[$key]} passes/s."
      echo
    fi
    if [ -n "${LIMIT_WAITS[$key]:-}" ]; then
      echo "pgbench's sessions in pg_stat_activity (every 0.25 s; wait_event_type:wait_event|statement):"
      echo "${LIMIT_WAITS[$key]}."
      echo
    fi
  done
}
