# shellcheck shell=bash
# Custom fields for the benchmark (issue 23, docs/custom-fields.md): the
# definitions through the API (POST /v1/crm/contacts/fields, so rapportd's
# caches know them), the values of seeded contacts with SQL, as the engine
# writes them (sdk/src/custom_fields/values.cpp, sideValuesOf; migration
# 0013_custom_fields). Sourced by run.sh (after api.sh and seed.sh).

# The 20 fields of contact_create_cf20 / contact_update_cf20, "key type": every
# type a create commonly sends (text, number, decimal, money, boolean, date,
# datetime, select, multi_select, email, url, phone), none unique.
CF20_FIELDS=(
  "lead_source select" "segment select" "interests multi_select"
  "nickname text" "department text" "region text" "account_code text"
  "employees number" "score number" "discount decimal"
  "budget money" "lifetime_value money" "newsletter boolean" "vip boolean"
  "birthday date" "renewal_date date" "last_contacted datetime"
  "billing_email email" "website url" "mobile phone"
)

# The values a contact_create_cf20 request sends, one per field.
CF20_VALUES='{"lead_source":"referral","segment":"enterprise","interests":["crm","api"],
"nickname":"Bench {seq}","department":"Procurement","region":"EMEA","account_code":"AC-{seq}",
"employees":250,"score":87,"discount":12.5,"budget":1250000,"lifetime_value":9800000,
"newsletter":true,"vip":false,"birthday":"1985-06-15","renewal_date":"2027-03-31",
"last_contacted":"2026-11-20T14:30:00Z","billing_email":"billing.{seq}@bench.example",
"website":"https://bench.example/{seq}","mobile":"+44 7700 900123"}'
CF20_VALUES=${CF20_VALUES//$'\n'/}

# cf_options TYPE: the "options" member of a select type's definition.
cf_options() {
  case $1 in
    select | multi_select)
      printf ',"options":[%s]' '{"value":"referral"},{"value":"website"},{"value":"event"},{"value":"enterprise"},{"value":"smb"},{"value":"crm"},{"value":"api"},{"value":"billing"}'
      ;;
  esac
}

# cf_define RECORDS KEY TYPE [OPTIONS_JSON]: one definition on /v1/crm/RECORDS,
# unless the key is defined already.
cf_define() {
  local records=$1 key=$2 type=$3 options=${4:-}
  if api GET "/v1/crm/$records/fields/$key" >/dev/null 2>&1; then return 0; fi
  [ -n "$options" ] || options=$(cf_options "$type")
  api POST "/v1/crm/$records/fields" \
    "{\"key\":\"$key\",\"label\":\"Bench $key\",\"type\":\"$type\"$options}" >/dev/null
}

# define_cf20: the 20 fields on the run's company's contacts.
define_cf20() {
  local entry
  for entry in "${CF20_FIELDS[@]}"; do
    # shellcheck disable=SC2086 # "key type"
    cf_define contacts $entry || return 1
  done
}

# cf_id KEY: the id (cf_...) of the run's company's live contact field KEY.
cf_id() {
  db_value "SELECT id FROM custom_field_definitions WHERE company_id = '$COMPANY_ID'
    AND record_type = 'contact' AND field_key = '$1' AND deleted_at IS NULL"
}

# --- The flat-cost mode (run.sh --scale) -------------------------------------------

# Three fields on every seeded contact (row i, from the multiplicative hashes
# of seed.sh, so the same values on both engines):
#   tier   select, one of 5 options alike (SCALE_TIER "gold": 20%)
#   score  number, 0..999 999 uniform
#   since  date, 2015-01-01 plus 0..3649 days uniform (a year: ~10%)
SCALE_TIERS="bronze silver gold platinum diamond"
# shellcheck disable=SC2034 # used by run.sh
SCALE_TIER=gold
SEED_CF_TIER="" SEED_CF_SCORE="" SEED_CF_SINCE=""  # their ids once defined

# define_scale_fields: the three fields through the API; sets SEED_CF_*,
# which seed_sql (seed.sh) then writes into each contact's custom_fields.
define_scale_fields() {
  local options="" tier
  for tier in $SCALE_TIERS; do options+="${options:+,}{\"value\":\"$tier\"}"; done
  cf_define contacts tier select ",\"options\":[$options]" &&
    cf_define contacts score number && cf_define contacts since date || return 1
  SEED_CF_TIER=$(cf_id tier) SEED_CF_SCORE=$(cf_id score) SEED_CF_SINCE=$(cf_id since)
  [[ $SEED_CF_TIER == cf_* && $SEED_CF_SCORE == cf_* && $SEED_CF_SINCE == cf_* ]] || {
    log "the scale fields' ids were not found ($SEED_CF_TIER $SEED_CF_SCORE $SEED_CF_SINCE)"
    return 1
  }
}

# seed_cf_json: the SQL expression of a seeded contact's custom_fields (in
# seed_sql's SELECT, where i, x1 and x4 are the row's number and hashes):
# '{"<tier id>":"gold","<score id>":123456,"<since id>":"2019-04-02"}', the
# JSON text mergedJson writes.
seed_cf_json() {
  local -a tiers
  read -r -a tiers <<<"$SCALE_TIERS"
  local tier="CASE (x1 >> 12) % 5" k since
  for k in "${!tiers[@]}"; do tier+=" WHEN $k THEN '${tiers[$k]}'"; done
  tier+=" END"
  case $ENGINE in
    sqlite) since="date('2015-01-01', '+' || ((x4 >> 12) % 3650) || ' days')" ;;
    postgresql) since="to_char(DATE '2015-01-01' + ((x4 >> 12) % 3650)::int, 'YYYY-MM-DD')" ;;
  esac
  printf '%s' "'{\"$SEED_CF_TIER\":\"' || $tier || '\",\"$SEED_CF_SCORE\":' || ((x1 >> 4) % 1000000)
    || ',\"$SEED_CF_SINCE\":\"' || $since || '\"}'"
}

# cf_json_value ID: the SQL of the value of field ID in contact c's custom_fields.
cf_json_value() {
  case $ENGINE in
    sqlite) printf "json_extract(c.custom_fields, '\$.%s')" "$1" ;;
    postgresql) printf "(c.custom_fields::jsonb ->> '%s')" "$1" ;;
  esac
}

# seed_cf_rows RANGE: the SQL writing the side rows (custom_field_values) of
# the contacts c matching RANGE from their custom_fields, as writeIndexRows
# does: select and date in v_text, number in v_num, the record's created_at.
seed_cf_rows() {
  local range=$1 tier num since
  [ -n "$SEED_CF_TIER" ] || return 0
  tier=$(cf_json_value "$SEED_CF_TIER") num=$(cf_json_value "$SEED_CF_SCORE")
  since=$(cf_json_value "$SEED_CF_SINCE")
  [ "$ENGINE" = sqlite ] || num="$num::bigint"
  cat <<EOF
INSERT INTO custom_field_values (company_id, field_id, record_id, v_text, v_num, v_long, created_at)
SELECT c.company_id, '$SEED_CF_TIER', c.id, $tier, NULL, NULL, c.created_at
  FROM contacts c WHERE $range
UNION ALL
SELECT c.company_id, '$SEED_CF_SCORE', c.id, NULL, $num, NULL, c.created_at
  FROM contacts c WHERE $range
UNION ALL
SELECT c.company_id, '$SEED_CF_SINCE', c.id, $since, NULL, NULL, c.created_at
  FROM contacts c WHERE $range;
EOF
}
