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
DELETE FROM deal_counts WHERE company_id = '$COMPANY_ID';
INSERT INTO deal_counts (company_id, slot, total)
  SELECT company_id, 0, COUNT(*) FROM deals WHERE company_id = '$COMPANY_ID' GROUP BY company_id;
DELETE FROM deal_stage_totals WHERE company_id = '$COMPANY_ID';
INSERT INTO deal_stage_totals (company_id, pipeline_id, stage_id, slot, deals_count, deals_value)
  SELECT company_id, pipeline_id, stage_id, 0, COUNT(*), SUM(value) FROM deals
  WHERE company_id = '$COMPANY_ID' AND status = 'open'
  GROUP BY company_id, pipeline_id, stage_id;
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
