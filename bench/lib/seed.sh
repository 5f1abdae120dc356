# shellcheck shell=bash
# Contacts for the benchmark, written with SQL straight into the database the
# running rapportd uses (after its migrations ran): sqlite3 for SQLite, psql
# for PostgreSQL. Sourced by run.sh, which sets ENGINE (sqlite|postgresql),
# DB_URL (rapportd's database.url), COMPANY_ID and USER_ID (the registered
# user's tenant and id) and LOGS.
#
# Rows are numbered i = 1, 2, ...; everything in row i is a deterministic
# function of i (a multiplicative hash picks from the lists below), so the same
# rows come out on both engines and in every run, and topping up from n to m
# rows adds rows n+1..m. Row i:
#
#   id          cont_seed<i, 17 digits>          (26 characters, as newId's)
#   name        "<first> <surname>"; 64 first names, 40 x 40 = 1600 surnames,
#               so one surname is ~1/1600 of the rows (~62 in 100 000)
#   email       <first>.<surname>.<i>@<one of 8 domains>, lower-case, unique
#   phone       +44 <4 digits> <6 digits>; job_title one of 16
#   tags        1% ["VIP","customer"], 10% ["customer"], 20% ["lead"], else []
#   created_at  2023-11-14 + i x 30 s (updated_at the same)
#   owner       30% the user, 30% one of 5 other ids (user_seed0..4), 40% none
#   company_id  (crm_company_id) 90% one of the SEED_CRM_COMPANIES seeded CRM
#               companies (seed_crm_companies), 10% none
#
# The CRM companies (seed_crm_companies, seeded once, before the first
# contacts): SEED_CRM_COMPANIES of them, company k with id comp_seed<k, 17
# digits>, name "Seeded company <k>" and one of the 12 industries of
# SEED_INDUSTRY (SEED_INDUSTRY_TERM, "Retail", on ~1/12 of them). Their number
# does not grow with the contacts: the filter company.industry then matches
# a fixed share of the contacts at every size.
#
# plus two fixed sets that do not grow with the table, for the flat-cost
# measurement: among rows 1..10000, every 500th (i % 500 = 250) has the
# surname "Quennell" (20 rows) and every 500th (i % 500 = 0) the tag "partner"
# (20 rows).
#
# custom_fields: when the scale fields are defined (run.sh --scale with a
# custom-field list; SEED_CF_TIER set by lib/custom_fields.sh), each row's
# values of tier, score and since in the JSON column, and their
# custom_field_values rows written from it in the same transaction.
#
# search_text is a generated column and is not written; on SQLite the FTS5
# table contacts_search is written from search_queue, where the module's
# insert trigger notes the rows (search_flush_sql), and contact_counts is
# kept by its insert trigger; contact_tags gets one row per tag.
#
# Row triggers on PostgreSQL: the only ones on contacts and contact_tags keep
# contact_counts and contact_tag_counts (one row per tenant, or per tenant
# and tag, +1 per insert). Within one transaction every insert
# then updates the same row again, and each update must walk past all the
# row versions the transaction made before it: 10 000 rows took 1.9 s,
# 90 000 more 73 s (quadratic; 1 000 000 would take hours). The seed
# therefore runs with session_replication_role = replica (row triggers
# skipped) and replaces the tenant's rows of both by COUNT(*) (slot 0) in
# the same transaction. PostgreSQL then runs VACUUM ANALYZE (planner and GIN
# statistics: without them the planner may not use the trigram index, see
# docs/modules/contacts.md). SQLite gets no ANALYZE: rapportd never runs it,
# so a real database has no sqlite_stat1 and the module's SQL is written for
# that (the unary + of rapport::addTextSearch).

SEED_LOG=()  # one line per seeding, for the results file

# search_flush_sql TABLE: on SQLite, the statements that index the rows the
# seed's inserts queued (the search triggers only note them in search_queue,
# host migration 0017; rapportd's group commit indexes them per batch,
# host/storage/SearchQueue.h), for the seed's transaction before its COMMIT:
# without them the seeded rows would wait for rapportd's next write.
# Nothing on PostgreSQL.
search_flush_sql() {
  [ "$ENGINE" = sqlite ] || return 0
  cat <<EOF
INSERT INTO $1_search ($1_search, rowid, search_text)
  SELECT 'delete', rid, old_text FROM search_queue WHERE tbl = '$1' AND indexed = 1;
INSERT INTO $1_search (rowid, search_text)
  SELECT r.seq, r.search_text FROM search_queue q JOIN $1 r ON r.seq = q.rid WHERE q.tbl = '$1';
DELETE FROM search_queue WHERE tbl = '$1';
EOF
}

# shellcheck disable=SC2034 # used by run.sh and scenarios.sh
# The search term of contact_search: one surname (~62 rows in 100 000).
SEED_SEARCH_TERM=hartwell
# Fixed-size sets (20 rows whatever the table's size), see above, and a tag
# on 1% of the rows.
# shellcheck disable=SC2034
SEED_RARE_TERM=quennell SEED_RARE_TAG=partner SEED_COMMON_TAG=vip
# The CRM companies the contacts belong to, and the industry a list filters on.
# shellcheck disable=SC2034
SEED_CRM_COMPANIES=1000 SEED_INDUSTRY_TERM=Retail

# db_sql: runs the SQL on stdin against rapportd's database, stops at the
# first error; the output (query results, one row a line, "|" between
# columns) on stdout.
db_sql() {
  case $ENGINE in
    sqlite) sqlite3 -bail -batch -noheader "${DB_URL#sqlite:}" ;;
    postgresql) psql "$DB_URL" -X -q -A -t -v ON_ERROR_STOP=1 ;;
    *) echo "db_sql: unknown engine '$ENGINE'" >&2; return 1 ;;
  esac
}

# db_value SQL: the single value SQL returns.
db_value() { printf '%s;\n' "$1" | db_sql | tail -n 1; }

# sql_values 'a b c': "(0,'a'),(1,'b'),(2,'c')", the rows of a lookup table.
sql_values() {
  local k=0 v out=""
  for v in $1; do
    out+="${out:+,}($k,'${v//_/ }')"
    k=$((k + 1))
  done
  printf '%s' "$out"
}

SEED_FIRST="Ada Alan Alice Amara Anna Arjun Ben Bianca Carlos Chen Chloe Daniel Diego Elena
  Emma Ethan Fatima Felix Grace Hana Hugo Ines Isaac Ivy Jack James Jana Kai Kenji Laura Leo
  Lina Lucas Maria Mateo Maya Mei Mohammed Nadia Noah Nora Olga Omar Oscar Paula Priya Rafael
  Rosa Ruth Sam Sara Sofia Tariq Theo Tomas Uma Victor Wei Yara Yusuf Zara Zoe Ingrid Pablo"
SEED_PREFIX="Ash Black Brad Brook Cald Carl Chad Dal Dun Elm Fair Fern Glad Hal Hart Hay Holl
  Kings Lang Lock Mar Mill Mor New Nor Oak Pem Red Ros Rut Stan Stock Sut Thorn Wal Wen West
  Whit Wood Wy"
SEED_SUFFIX="ford ley ton wood well by field more worth combe ham shaw bridge ridge den stone
  hurst wick land ington bury cott dale gate hill holme lake mere mouth port stead thorpe wade
  wall win croft brook acre bourne sey"
SEED_DOMAIN="example.com example.org example.net mail.example acme.example globex.example
  initech.example umbrella.example"
SEED_INDUSTRY="Retail Software Manufacturing Healthcare Finance Education Logistics Hospitality
  Construction Energy Media Agriculture"
SEED_JOB="Account_Manager Analyst CEO CFO CTO Designer Engineer Head_of_Sales Marketing_Lead
  Office_Manager Operations_Director Product_Manager Buyer Consultant Founder Procurement_Officer"

# seed_sql FROM TO: the SQL that inserts rows FROM..TO for COMPANY_ID, in one
# transaction.
seed_sql() {
  local from=$1 to=$2 numbers pad cpad cf_column="" cf_value=""
  local -a n=()
  # The scale fields (lib/custom_fields.sh), once defined: each row's values.
  if [ -n "${SEED_CF_TIER:-}" ]; then
    cf_column=", custom_fields" cf_value=",
       $(seed_cf_json)"
  fi
  local list
  for list in "$SEED_FIRST" "$SEED_PREFIX" "$SEED_SUFFIX" "$SEED_DOMAIN" "$SEED_JOB"; do
    n+=("$(wc -w <<<"$list")")
  done
  case $ENGINE in
    sqlite)
      # 256 MiB page cache for this connection: the indexes are built in memory.
      echo "PRAGMA cache_size = -262144;"
      numbers="RECURSIVE n(i) AS (SELECT $from UNION ALL SELECT i + 1 FROM n WHERE i < $to)"
      pad="printf('%017d', i)" cpad="printf('%017d', 1 + (x4 >> 8) % $SEED_CRM_COMPANIES)"
      ;;
    postgresql)
      echo "SET maintenance_work_mem = '256MB'; SET work_mem = '64MB';"
      # Row triggers off for this session (the cluster's user is a superuser),
      # counts recomputed below: see "Row triggers" above.
      echo "SET session_replication_role = replica;"
      numbers="n(i) AS (SELECT generate_series($from::bigint, $to::bigint))"
      pad="lpad(i::text, 17, '0')" cpad="lpad((1 + (x4 >> 8) % $SEED_CRM_COMPANIES)::text, 17, '0')"
      ;;
  esac
  cat <<EOF
BEGIN;
CREATE TEMP TABLE seed_first (k INTEGER PRIMARY KEY, v TEXT NOT NULL);
CREATE TEMP TABLE seed_prefix (k INTEGER PRIMARY KEY, v TEXT NOT NULL);
CREATE TEMP TABLE seed_suffix (k INTEGER PRIMARY KEY, v TEXT NOT NULL);
CREATE TEMP TABLE seed_domain (k INTEGER PRIMARY KEY, v TEXT NOT NULL);
CREATE TEMP TABLE seed_job (k INTEGER PRIMARY KEY, v TEXT NOT NULL);
INSERT INTO seed_first VALUES $(sql_values "$SEED_FIRST");
INSERT INTO seed_prefix VALUES $(sql_values "$SEED_PREFIX");
INSERT INTO seed_suffix VALUES $(sql_values "$SEED_SUFFIX");
INSERT INTO seed_domain VALUES $(sql_values "$SEED_DOMAIN");
INSERT INTO seed_job VALUES $(sql_values "$SEED_JOB");
INSERT INTO contacts (id, company_id, name, email, phone, job_title, owner_id, crm_company_id,
                      tags, created_at, updated_at$cf_column)
WITH $numbers,
h AS (
  SELECT i, (i * 2654435761) % 4294967296 AS x1, (i * 2246822519) % 4294967296 AS x2,
         (i * 3266489917) % 4294967296 AS x3, (i * 3432918353) % 4294967296 AS x4
  FROM n),
p AS (
  SELECT i, x1, x3, x4, f.v AS first,
         CASE WHEN i <= 10000 AND i % 500 = 250 THEN 'Quennell' ELSE sp.v || ss.v END AS surname,
         d.v AS domain, j.v AS job,
         CASE WHEN i <= 10000 AND i % 500 = 0 THEN '["partner"]'
              WHEN x3 % 1000 < 10 THEN '["VIP","customer"]'
              WHEN x3 % 1000 < 110 THEN '["customer"]'
              WHEN x3 % 1000 < 310 THEN '["lead"]'
              ELSE '[]' END AS tags
  FROM h
  JOIN seed_first f ON f.k = (x1 >> 16) % ${n[0]}
  JOIN seed_prefix sp ON sp.k = (x2 >> 16) % ${n[1]}
  JOIN seed_suffix ss ON ss.k = (x2 >> 8) % ${n[2]}
  JOIN seed_domain d ON d.k = (x1 >> 8) % ${n[3]}
  JOIN seed_job j ON j.k = (x3 >> 20) % ${n[4]})
SELECT 'cont_seed' || $pad, '$COMPANY_ID', first || ' ' || surname,
       lower(first || '.' || surname || '.' || i || '@' || domain),
       '+44 ' || (1000 + (x3 >> 8) % 9000) || ' ' || (100000 + (x1 >> 4) % 900000),
       job,
       CASE WHEN (x4 >> 4) % 10 < 3 THEN '$USER_ID'
            WHEN (x4 >> 4) % 10 < 6 THEN 'user_seed' || ((x4 >> 20) % 5) END,
       CASE WHEN x4 % 10 <> 0 THEN 'comp_seed' || $cpad END,
       tags, 1700000000000000 + i * 30000000, 1700000000000000 + i * 30000000$cf_value
FROM p;
EOF
  # One tag row per tag, from the tags just written.
  local span range
  span="c.company_id = '$COMPANY_ID' AND c.id > 'cont_seed$(printf '%017d' $((from - 1)))'
    AND c.id <= 'cont_seed$(printf '%017d' "$to")'"
  range="$span AND c.tags <> '[]'"
  case $ENGINE in
    sqlite)
      cat <<EOF
INSERT INTO contact_tags (company_id, contact_id, tag_lower, created_at)
SELECT c.company_id, c.id, lower(t.value), c.created_at FROM contacts c, json_each(c.tags) t
WHERE $range;
$(seed_cf_rows "$span")
$(search_flush_sql contacts)
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
EOF
      ;;
    postgresql)
      cat <<EOF
INSERT INTO contact_tags (company_id, contact_id, tag_lower, created_at)
SELECT c.company_id, c.id, lower(t), c.created_at
FROM contacts c, jsonb_array_elements_text(c.tags::jsonb) t
WHERE $range;
$(seed_cf_rows "$span")
DELETE FROM contact_counts WHERE company_id = '$COMPANY_ID';
INSERT INTO contact_counts (company_id, slot, total)
  SELECT '$COMPANY_ID', 0, COUNT(*) FROM contacts WHERE company_id = '$COMPANY_ID';
DELETE FROM contact_tag_counts WHERE company_id = '$COMPANY_ID';
INSERT INTO contact_tag_counts (company_id, tag_lower, slot, total)
  SELECT company_id, tag_lower, 0, COUNT(*) FROM contact_tags WHERE company_id = '$COMPANY_ID'
  GROUP BY company_id, tag_lower;
COMMIT;
VACUUM ANALYZE contacts;
VACUUM ANALYZE contact_tags;
$([ -z "${SEED_CF_TIER:-}" ] || echo "VACUUM ANALYZE custom_field_values;")
EOF
      ;;
  esac
}

# seed_crm_companies: the SEED_CRM_COMPANIES CRM companies the contacts refer
# to, once per tenant (nothing when they are there). On PostgreSQL with row
# triggers off and crm_company_counts recomputed, as for the contacts.
seed_crm_companies() {
  local have numbers pad replica="" counts="" analyze=""
  have=$(db_value "SELECT COUNT(*) FROM crm_companies WHERE company_id = '$COMPANY_ID'
    AND id >= 'comp_seed' AND id < 'comp_seee'") || return 1
  ((have == 0)) || return 0
  case $ENGINE in
    sqlite)
      numbers="RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $SEED_CRM_COMPANIES)"
      pad="printf('%017d', i)"
      ;;
    postgresql)
      numbers="n(i) AS (SELECT generate_series(1::bigint, $SEED_CRM_COMPANIES::bigint))"
      pad="lpad(i::text, 17, '0')"
      replica="SET LOCAL session_replication_role = replica;"
      counts="DELETE FROM crm_company_counts WHERE company_id = '$COMPANY_ID';
INSERT INTO crm_company_counts (company_id, slot, total)
  SELECT '$COMPANY_ID', 0, COUNT(*) FROM crm_companies WHERE company_id = '$COMPANY_ID';"
      analyze="VACUUM ANALYZE crm_companies;"
      ;;
  esac
  db_sql >/dev/null <<SQL || return 1
BEGIN;
$replica
CREATE TEMP TABLE seed_industry (k INTEGER PRIMARY KEY, v TEXT NOT NULL);
INSERT INTO seed_industry VALUES $(sql_values "$SEED_INDUSTRY");
INSERT INTO crm_companies (id, company_id, name, industry, tags, created_at, updated_at)
WITH $numbers
SELECT 'comp_seed' || $pad, '$COMPANY_ID', 'Seeded company ' || i, s.v, '[]',
       1690000000000000 + i * 60000000, 1690000000000000 + i * 60000000
FROM n JOIN seed_industry s
  ON s.k = (((i * 2654435761) % 4294967296) >> 16) % $(wc -w <<<"$SEED_INDUSTRY");
$counts
$(search_flush_sql crm_companies)
COMMIT;
$analyze
SQL
  SEED_LOG+=("$ENGINE, $SEED_CRM_COMPANIES CRM companies (12 industries, 1/12 $SEED_INDUSTRY_TERM)")
}

# seeded_rows: how many seeded rows COMPANY_ID has (rows 1..n are seeded).
seeded_rows() {
  db_value "SELECT COUNT(*) FROM contacts WHERE company_id = '$COMPANY_ID'
    AND id >= 'cont_seed' AND id < 'cont_seee'"
}

# seed_contacts ROWS: tops the tenant up to ROWS seeded contacts (nothing when
# it has them already). Logs the time taken; sets SEED_SECONDS.
seed_contacts() {
  local rows=$1 have started
  have=$(seeded_rows) || return 1
  SEED_SECONDS=0
  ((have < rows)) || return 0
  seed_crm_companies || return 1
  log "seeding contacts $((have + 1))..$rows into $ENGINE ($COMPANY_ID)"
  started=$(date +%s.%N)
  seed_sql $((have + 1)) "$rows" | db_sql >/dev/null || return 1
  SEED_SECONDS=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  local rate
  rate=$(awk -v n=$((rows - have)) -v s="$SEED_SECONDS" 'BEGIN { printf "%.0f", n / (s > 0 ? s : 1) }')
  log "seeded $((rows - have)) contacts in ${SEED_SECONDS} s ($rate rows/s)"
  SEED_LOG+=("$ENGINE, contacts $((have + 1))..$rows: ${SEED_SECONDS} s ($rate rows/s)")
  [ "$(seeded_rows)" = "$rows" ] || { log "seeding left $(seeded_rows) rows, not $rows"; return 1; }
}

# seed_id I: the id of seeded row I.
seed_id() { printf 'cont_seed%017d' "$1"; }

# expected_matches TERM: contacts of the tenant whose search_text holds TERM
# (lower-case), counted in SQL without the search index: what the API's
# meta.total must say.
expected_matches() {
  local find=instr
  [ "$ENGINE" = sqlite ] || find=strpos
  db_value "SELECT COUNT(*) FROM contacts WHERE company_id = '$COMPANY_ID' AND $find(search_text, '$1') > 0"
}

# expected_tagged TAG: contacts of the tenant with TAG (lower-case).
expected_tagged() {
  db_value "SELECT COUNT(*) FROM contact_tags WHERE company_id = '$COMPANY_ID' AND tag_lower = '$1'"
}

# json_total: meta.total of the list answer on stdin.
json_total() { grep -o '"total" *: *[0-9]*' | sed -n '1s/.*: *//p'; }

# check_list QUERY EXPECTED: GET /v1/crm/contacts?QUERY answers meta.total EXPECTED.
check_list() {
  local answer total
  answer=$(api GET "/v1/crm/contacts?$1") || return 1
  total=$(json_total <<<"$answer")
  if [ "$total" != "$2" ]; then
    log "GET /v1/crm/contacts?$1: meta.total $total, expected $2"
    return 1
  fi
  log "GET /v1/crm/contacts?$1: meta.total $total, as expected"
}
