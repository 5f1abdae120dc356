# shellcheck shell=bash
# shellcheck disable=SC2034 # the SCN_* the prepare_ hooks set are read by run.sh
# The scenarios bench/run.sh measures on each engine (sourced by run.sh).
#
# One line per scenario:   NAME  ACCESS  METHOD  PATH  [BODY...]
#   NAME    letters, digits and "_" (used in log file names and --scenarios)
#   ACCESS  public: no credentials; token: "Authorization: Bearer <token>" of
#           the user run.sh registers on each engine; key:SCOPES:
#           "Authorization: Bearer rk_..." of an API key holding SCOPES
#           (comma-separated), created with that user's token before the
#           scenario's prepare_ hook (create_api_key, lib/api.sh)
#   BODY    the rest of the line, sent as application/json
#
# Each scenario is checked once with curl (it must answer 2xx), measured with
# wrk at each --connections count, while the per-connection check
# (lib/served.sh, docs/performance.md) watches every connection.
#
# A scenario that needs data or a computed path also defines a function
# prepare_<NAME>, called once per engine after registration and before the
# measurement (its output goes to prepare.log in the log folder). It may seed
# data with `api` (lib/api.sh) or SQL (lib/seed.sh: seed_contacts, db_sql)
# and set:
#   SCN_PATH, SCN_BODY   the request; every "{seq}" in the body is replaced by
#                        a value unique to each request (lua/measure.lua)
#   SCN_EXPECT           the one status every response must have (e.g. 201);
#                        default: any 2xx
#   SCN_MAX_GAP_MS       longest wait without a response on one connection
#                        (default --max-gap, 1000 ms; lib/served.sh)
#   SCN_TIMEOUT          wrk --timeout for a slow request (default 2s)
# The contact scenarios below are examples.

# The body of contact_create; contact_create_cf20 sends it with 20 custom fields.
CONTACT_CREATE_BODY='{"name":"New Contact {seq}","email":"New.{seq}@Bench.Example","phone":"+44 20 7946 0000","job_title":"Buyer","tags":["lead","bench"]}'
# shellcheck disable=SC2034 # read by run.sh
SCENARIOS=(
  "versions        public  GET   /v1/versions"
  "me              token   GET   /v1/auth/me"
  "contact_get     token   GET   /v1/crm/contacts/SEEDED"
  "contact_get_key  key:contacts:read  GET  /v1/crm/contacts/SEEDED"
  "contact_search  token   GET   /v1/crm/contacts?search=TERM&per_page=20"
  "contact_filter  token   GET   /v1/crm/contacts?filter=FILTER&sort=name&limit=20"
  "contact_list    token   GET   /v1/crm/contacts?limit=20"
  "contact_create  token   POST  /v1/crm/contacts  $CONTACT_CREATE_BODY"
  "contact_update  token   PATCH /v1/crm/contacts/UPDATED"
  "contact_create_cf20  token  POST  /v1/crm/contacts"
  "contact_update_cf20  token  PATCH /v1/crm/contacts/UPDATED"
  "pipeline_list_few  token  GET   /v1/crm/pipelines?per_page=3"
  "deal_create     token   POST  /v1/crm/deals"
  "deal_stage_move token   PATCH /v1/crm/deals/MOVED/stage"
  "pipeline_list   token   GET   /v1/crm/pipelines?per_page=3"
)

# Measured a second time at each connection count beside bench/run.sh
# --slowloris slow clients (200 by default; lib/slowloris.py): the front end
# alone, and a record read.
# shellcheck disable=SC2034 # read by run.sh
SLOWLORIS_SCENARIOS="versions contact_get"

# The contacts the read scenarios use: 100 000 in the benchmark tenant,
# written with SQL (lib/seed.sh), once per engine. BENCH_CONTACTS=N
# (environment) seeds N instead: contact_create measured after a list
# scenario then writes into a tenant of N contacts (issue 25: the rate of a
# company at 1,000,000 contacts against its rate when empty).
CONTACTS_ROWS=${BENCH_CONTACTS:-100000}

# One seeded contact, checked through the API first.
prepare_contact_get() {
  seed_contacts "$CONTACTS_ROWS" || return 1
  SCN_PATH="/v1/crm/contacts/$(seed_id 4242)"
  api GET "$SCN_PATH" | grep -q "\"id\":\"$(seed_id 4242)\"" || {
    echo "GET $SCN_PATH did not answer the seeded contact" >&2
    return 1
  }
}

# contact_get's request with an API key instead of the user's token (issue
# 24): the same contact, seeded and checked the same way; only the
# credential differs. Goal: within 5% of contact_get (docs/performance.md,
# "API keys").
prepare_contact_get_key() {
  prepare_contact_get
}

# The first page (20) of a search for one surname, which ~62 of the 100 000
# contacts have; meta.total must match what SQL counts without the index.
prepare_contact_search() {
  seed_contacts "$CONTACTS_ROWS" || return 1
  local query="search=$SEED_SEARCH_TERM&per_page=20"
  check_list "$query" "$(expected_matches "$SEED_SEARCH_TERM")" || return 1
  SCN_PATH="/v1/crm/contacts?$query"
}

# The first page (20) of the unfiltered list in the cursor form (decisions
# §13), newest first: the baseline of contact_filter (the same engine, no
# filter; served by the created_at index, stopping after the page).
prepare_contact_list() {
  seed_contacts "$CONTACTS_ROWS" || return 1
  SCN_PATH="/v1/crm/contacts?limit=20"
  [ "$(api GET "$SCN_PATH" | grep -o '"id":"cont_' | wc -l)" = 20 ] || {
    echo "GET $SCN_PATH did not answer 20 contacts" >&2
    return 1
  }
}

# A filtered, sorted page in the cursor form (decisions §13): the contacts
# from "m" on, by name, that have no owner or are not a CEO, 20 at a time
# (served by the name index: a seek to "m", each row tested); the answer must
# hold 20 contacts. (A `contains` that every contact matches would measure
# the search index's matches instead: that is contact_search's subject.)
prepare_contact_filter() {
  seed_contacts "$CONTACTS_ROWS" || return 1
  local filter='{"name":{"gte":"m"},"or":[{"owner_id":{"null":true}},{"job_title":{"ne":"CEO"}}]}'
  local encoded
  encoded=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' \
    "$filter")
  SCN_PATH="/v1/crm/contacts?filter=$encoded&sort=name&limit=20"
  [ "$(api GET "$SCN_PATH" | grep -o '"id":"cont_' | wc -l)" = 20 ] || {
    echo "GET $SCN_PATH did not answer 20 contacts" >&2
    return 1
  }
}

# A new contact per request: unique name and e-mail ({seq}), two tags; 201
# or the run fails (a duplicate e-mail would answer 409). Measured last, as it
# adds contacts to the tenant.
prepare_contact_create() {
  SCN_EXPECT=201
}

# 200 contacts created through the API; each request changes one of them
# (job title and phone), and the next pass changes them back (BENCH_PATHS,
# BENCH_BODIES in lua/requests.lua): every request is a real change, 200 or
# the run fails. Measured before contact_create_cf20 defines the company's
# custom fields: the baseline of contact_update_cf20.
prepare_contact_update() {
  bench_contacts 200 "$CONTACT_CREATE_BODY" || return 1
  SCN_BODY='{"job_title":"Analyst","phone":"+44 20 7946 0001"}'
  SCN_BODIES="$SCN_BODY"$'\n''{"job_title":"Buyer","phone":"+44 20 7946 0000"}'
  SCN_EXPECT=200
}

# --- Custom fields (issue 23, lib/custom_fields.sh) ---------------------------------
# Goal: with 20 custom fields, creates and updates at 0.7x or more of the
# rate of contact_create and contact_update, measured before them in the
# same run (docs/performance.md, "Custom fields").

# The company defines 20 custom fields on contacts (every common type), and
# each create sends all 20 values beside contact_create's body; 201 or the
# run fails. From here on the company's contacts have 20 fields.
prepare_contact_create_cf20() {
  define_cf20 || return 1
  SCN_BODY="${CONTACT_CREATE_BODY%\}},\"custom_fields\":$CF20_VALUES}"
  SCN_EXPECT=201
}

# 200 contacts created with the 20 values; each request changes the job
# title and phone, as contact_update does, and 5 of the 20 custom fields
# (select, number, money, date, boolean), and the next pass changes them back.
prepare_contact_update_cf20() {
  define_cf20 || return 1
  bench_contacts 200 "${CONTACT_CREATE_BODY%\}},\"custom_fields\":$CF20_VALUES}" || return 1
  SCN_BODY='{"job_title":"Analyst","phone":"+44 20 7946 0001","custom_fields":{"lead_source":"event","score":42,"budget":990000,"renewal_date":"2027-06-30","vip":true}}'
  SCN_BODIES="$SCN_BODY"$'\n''{"job_title":"Buyer","phone":"+44 20 7946 0000","custom_fields":{"lead_source":"referral","score":87,"budget":1250000,"renewal_date":"2027-03-31","vip":false}}'
  SCN_EXPECT=200
}

# bench_contacts N BODY: N contacts created through the API with BODY ("{seq}"
# replaced by a fresh value each); sets SCN_PATHS (one per line) and SCN_PATH
# (the first).
bench_contacts() {
  local n=$1 body=$2 k answer id nonce="u$RANDOM"
  SCN_PATHS=""
  for ((k = 1; k <= n; k++)); do
    answer=$(api POST /v1/crm/contacts "${body//\{seq\}/$nonce-$k}") || return 1
    id=$(json_string id <<<"$answer")
    [[ $id == cont_* ]] || { echo "no contact id in: $answer" >&2; return 1; }
    SCN_PATHS+="/v1/crm/contacts/$id"$'\n'
  done
  SCN_PATH=${SCN_PATHS%%$'\n'*}
}

# --- Deals and pipelines (lib/deals.sh) ----------------------------------------------

# The deals behind the pipeline list's counters: 100 000 open deals with SQL.
DEALS_ROWS=100000

# The first page of the pipeline list, 3 pipelines of 3 stages with counters
# on each, while the tenant has no deals: the baseline of pipeline_list.
prepare_pipeline_list_few() {
  local name
  for name in Enterprise Partners Renewals; do bench_pipeline "$name" || return 1; done
  check_pipeline_count 0
}

# A new deal per request in the Renewals pipeline's first stage, a value and a
# tag; 201 or the run fails.
prepare_deal_create() {
  bench_pipeline "Deal create" || return 1
  SCN_BODY="{\"title\":\"Deal {seq}\",\"pipeline_id\":\"$PIPELINE_ID\",\"stage_id\":\"${STAGE_IDS[0]}\",\"value\":125000,\"tags\":[\"bench\"]}"
  SCN_EXPECT=201
}

# 200 deals created in a pipeline's first stage; each request moves one of
# them to the second stage, and the next pass moves them back (BENCH_PATHS,
# BENCH_BODIES in lua/requests.lua): every request is a real move (the row,
# the counters and the crm.deal.stage_changed event in one transaction),
# 200 or the run fails.
prepare_deal_stage_move() {
  local id
  bench_pipeline "Stage moves" || return 1
  bench_deals 200 "${STAGE_IDS[0]}" || return 1
  SCN_PATHS="" SCN_PATH="/v1/crm/deals/${DEAL_IDS[0]}/stage"
  for id in "${DEAL_IDS[@]}"; do SCN_PATHS+="/v1/crm/deals/$id/stage"$'\n'; done
  SCN_BODY="{\"stage_id\":\"${STAGE_IDS[1]}\"}"
  SCN_BODIES="$SCN_BODY"$'\n'"{\"stage_id\":\"${STAGE_IDS[0]}\"}"
  SCN_EXPECT=200
}

# The same page (the 3 newest pipelines, so the one seeded here and the two
# of deal_create and deal_stage_move) after 100 000 open deals were added to
# the newest: its cost must not grow with the deals (the counters are read
# from the deals module's slotted totals, never counted per request).
prepare_pipeline_list() {
  bench_pipeline "Seeded" || return 1
  seed_deals "$DEALS_ROWS" || return 1
  check_pipeline_count "$DEALS_ROWS"
}
