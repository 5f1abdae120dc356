# shellcheck shell=bash
# Pipelines and deals for the deal scenarios (scenarios.sh), through the API
# where the numbers are small and with SQL for the 100 000 deals behind the
# pipeline list. Sourced by run.sh after seed.sh (db_sql, db_value, log).

# bench_pipeline NAME: creates a pipeline with three stages through the API
# (the run's user owns its company); sets PIPELINE_ID and STAGE_IDS (array,
# in order).
bench_pipeline() {
  local answer
  answer=$(api POST /v1/crm/pipelines \
    "{\"name\":\"$1\",\"stages\":[{\"name\":\"Lead\",\"probability\":10},{\"name\":\"Proposal\",\"probability\":50},{\"name\":\"Won\",\"probability\":90}]}") ||
    return 1
  PIPELINE_ID=$(printf '%s' "$answer" | json_string id)
  mapfile -t STAGE_IDS < <(printf '%s' "$answer" | grep -o '"id" *: *"stg_[^"]*"' |
    sed 's/.*"\(stg_[^"]*\)"$/\1/')
  [[ $PIPELINE_ID == pipe_* && ${#STAGE_IDS[@]} == 3 ]] ||
    { echo "unexpected pipeline answer: $answer" >&2; return 1; }
}

# bench_deals COUNT STAGE: creates COUNT open deals in PIPELINE_ID's STAGE
# through the API; sets DEAL_IDS (array).
bench_deals() {
  local i answer
  DEAL_IDS=()
  for ((i = 1; i <= $1; i++)); do
    answer=$(api POST /v1/crm/deals \
      "{\"title\":\"Moved $i\",\"pipeline_id\":\"$PIPELINE_ID\",\"stage_id\":\"$2\",\"value\":10000}") ||
      return 1
    DEAL_IDS+=("$(printf '%s' "$answer" | json_string id)")
  done
}

# deal_counters_sql: the SQL that recomputes the tenant's deal counters
# (deal_counts, deal_stage_totals) the deals module's triggers keep, after a
# seeding that ran with them off.
deal_counters_sql() {
  cat <<SQL
DELETE FROM deal_counts WHERE company_id = '$COMPANY_ID';
INSERT INTO deal_counts (company_id, slot, total)
  SELECT company_id, 0, COUNT(*) FROM deals WHERE company_id = '$COMPANY_ID' GROUP BY company_id;
DELETE FROM deal_stage_totals WHERE company_id = '$COMPANY_ID';
INSERT INTO deal_stage_totals (company_id, pipeline_id, stage_id, slot, deals_count, deals_value)
  SELECT company_id, pipeline_id, stage_id, 0, COUNT(*), SUM(value) FROM deals
  WHERE company_id = '$COMPANY_ID' AND status = 'open'
  GROUP BY company_id, pipeline_id, stage_id;
SQL
}

# seed_deals ROWS: ROWS open deals with SQL in PIPELINE_ID, spread over its
# three stages (row i in stage i mod 3, value i cents), then the counters the
# deals module's triggers keep (deal_counts, deal_stage_totals) recomputed for
# the tenant. On PostgreSQL the rows go in with row triggers off
# (session_replication_role = replica), for the reason seed.sh gives for
# contacts: thousands of updates of the same counter rows in one transaction
# cost quadratic time. Sets SEED_SECONDS.
seed_deals() {
  local rows=$1 started numbers stage pad
  started=$(date +%s.%N)
  stage="CASE i % 3 WHEN 0 THEN '${STAGE_IDS[0]}' WHEN 1 THEN '${STAGE_IDS[1]}' ELSE '${STAGE_IDS[2]}' END"
  {
    case $ENGINE in
      sqlite)
        echo "PRAGMA cache_size = -262144; BEGIN;"
        numbers="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $rows)"
        pad="printf('%017d', i)"
        ;;
      postgresql)
        echo "BEGIN; SET LOCAL session_replication_role = replica;"
        numbers="WITH n(i) AS (SELECT generate_series(1::bigint, $rows))"
        pad="lpad(i::text, 17, '0')"
        ;;
    esac
    cat <<SQL
INSERT INTO deals (id, company_id, title, pipeline_id, stage_id, status, value, currency,
                   owner_id, probability, tags, created_at, updated_at)
  $numbers
  SELECT 'deal_seed' || $pad, '$COMPANY_ID',
         'Seeded deal ' || i, '$PIPELINE_ID', $stage, 'open', i, 'USD', '$USER_ID', 10, '[]',
         1700000000000000 + i * 30000000, 1700000000000000 + i * 30000000
  FROM n;
$(deal_counters_sql)
$(search_flush_sql deals)
COMMIT;
SQL
    [ "$ENGINE" = sqlite ] || echo "VACUUM ANALYZE deals;"
  } | db_sql >/dev/null || return 1
  SEED_SECONDS=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  log "seeded $rows deals in ${SEED_SECONDS} s"
  SEED_LOG+=("$ENGINE, deals 1..$rows: ${SEED_SECONDS} s")
}

# check_pipeline_count EXPECTED: GET /v1/crm/pipelines/PIPELINE_ID answers
# deals_count EXPECTED (the last "deals_count" of the answer is the
# pipeline's own; the stages' come first).
check_pipeline_count() {
  local answer count
  answer=$(api GET "/v1/crm/pipelines/$PIPELINE_ID") || return 1
  count=$(grep -o '"deals_count" *: *[0-9]*' <<<"$answer" | sed -n '$s/.*: *//p')
  if [ "$count" != "$1" ]; then
    log "GET /v1/crm/pipelines/$PIPELINE_ID: deals_count $count, expected $1"
    return 1
  fi
  log "GET /v1/crm/pipelines/$PIPELINE_ID: deals_count $count, as expected"
}

# The deals of the flat-cost mode (run.sh --scale), topped up like the
# contacts (seed_scale_deals), in PIPELINE_ID. Row i: id deal_seed<i, 17
# digits>, title "Seeded deal <i>", stage i mod 3, and from a multiplicative
# hash of i (the same rows on both engines and in every run):
#   status               60% open, 25% won, 15% lost (won_at or lost_at set)
#   value                $100.00 to $100,000.00 (cents), uniform
#   expected_close_date  2024-01-01 plus 0..1095 days, uniform; 5% none
#   owner_id             10% none; else the user or one of 7 other ids
#                        (user_seed1..7), alike (the user: ~11%)
#   created_at           2023-11-14 + i x 30 s, like the contacts
# The counters the module's triggers keep (deal_counts, deal_stage_totals)
# are recomputed for the tenant; PostgreSQL inserts with row triggers off
# (see seed_deals).

# seeded_deal_rows: how many seeded deals COMPANY_ID has.
seeded_deal_rows() {
  db_value "SELECT COUNT(*) FROM deals WHERE company_id = '$COMPANY_ID'
    AND id >= 'deal_seed' AND id < 'deal_seee'"
}

# seed_scale_deals ROWS: tops the tenant up to ROWS seeded deals (creating the
# pipeline first: bench_pipeline). Logs the time taken.
seed_scale_deals() {
  local rows=$1 have started from numbers stage pad day
  if [ -z "${PIPELINE_ID:-}" ]; then bench_pipeline "Scale" >>"$LOGS/prepare.log" 2>&1 || return 1; fi
  have=$(seeded_deal_rows) || return 1
  ((have < rows)) || return 0
  from=$((have + 1))
  log "seeding deals $from..$rows into $ENGINE ($COMPANY_ID)"
  started=$(date +%s.%N)
  stage="CASE i % 3 WHEN 0 THEN '${STAGE_IDS[0]}' WHEN 1 THEN '${STAGE_IDS[1]}' ELSE '${STAGE_IDS[2]}' END"
  {
    case $ENGINE in
      sqlite)
        echo "PRAGMA cache_size = -262144; BEGIN;"
        numbers="RECURSIVE n(i) AS (SELECT $from UNION ALL SELECT i + 1 FROM n WHERE i < $rows)"
        pad="printf('%017d', i)"
        date_plus() { echo "date('2024-01-01', '+' || ($1) || ' days')"; }
        ;;
      postgresql)
        echo "BEGIN; SET LOCAL session_replication_role = replica;"
        numbers="n(i) AS (SELECT generate_series($from::bigint, $rows::bigint))"
        pad="lpad(i::text, 17, '0')"
        date_plus() { echo "to_char(date '2024-01-01' + ($1)::int, 'YYYY-MM-DD')"; }
        ;;
    esac
    day=$(date_plus "(x3 >> 8) % 1096")
    cat <<SQL
INSERT INTO deals (id, company_id, title, pipeline_id, stage_id, status, value, currency,
                   owner_id, expected_close_date, probability, tags, won_at, lost_at,
                   created_at, updated_at)
WITH $numbers,
h AS (
  SELECT i, (i * 2654435761) % 4294967296 AS x1, (i * 2246822519) % 4294967296 AS x2,
         (i * 3266489917) % 4294967296 AS x3
  FROM n),
p AS (
  SELECT i, x1, x2, x3,
         CASE WHEN x1 % 100 < 60 THEN 'open' WHEN x1 % 100 < 85 THEN 'won' ELSE 'lost' END AS status,
         CASE WHEN x3 % 20 <> 0 THEN $day END AS close_date
  FROM h)
SELECT 'deal_seed' || $pad, '$COMPANY_ID', 'Seeded deal ' || i, '$PIPELINE_ID', $stage, status,
       100 * (100 + (x2 >> 8) % 99901), 'USD',
       CASE WHEN (x3 >> 4) % 10 = 0 THEN NULL
            WHEN (x2 >> 4) % 8 = 0 THEN '$USER_ID'
            ELSE 'user_seed' || ((x2 >> 4) % 8) END,
       close_date, 10, '[]',
       CASE WHEN status = 'won' THEN coalesce(close_date, '2024-01-01') END,
       CASE WHEN status = 'lost' THEN coalesce(close_date, '2024-01-01') END,
       1700000000000000 + i * 30000000, 1700000000000000 + i * 30000000
FROM p;
$(deal_counters_sql)
$(search_flush_sql deals)
COMMIT;
SQL
    if [ "$ENGINE" = sqlite ]; then
      echo "PRAGMA wal_checkpoint(TRUNCATE);"
    else
      echo "VACUUM ANALYZE deals;"
    fi
  } | db_sql >/dev/null || return 1
  local seconds rate
  seconds=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  rate=$(awk -v n=$((rows - have)) -v s="$seconds" 'BEGIN { printf "%.0f", n / (s > 0 ? s : 1) }')
  log "seeded $((rows - have)) deals in $seconds s ($rate rows/s)"
  SEED_LOG+=("$ENGINE, deals $from..$rows: $seconds s ($rate rows/s)")
  [ "$(seeded_deal_rows)" = "$rows" ] || { log "seeding left $(seeded_deal_rows) deals, not $rows"; return 1; }
}
