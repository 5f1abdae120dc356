# shellcheck shell=bash
# Small HTTP helpers for bench/run.sh and scenario prepare_ hooks, with curl
# only (python3 or jq may be missing). Use RAPPORT_URL and TOKEN set by run.sh.

# json_string NAME: the first "NAME": "value" string in the JSON on stdin.
# Enough for ids and tokens, which never hold quotes or backslashes.
json_string() {
  grep -o "\"$1\" *: *\"[^\"]*\"" | sed -n '1s/^.*: *"\(.*\)"$/\1/p'
}

# api METHOD PATH [BODY]: calls rapportd with the run's token, prints the
# response body, fails (with the status and body on stderr) unless 2xx.
api() {
  local method=$1 path=$2 body=${3:-} out status
  local -a args=(-sS --max-time 30 -X "$method" -o - -w '\n%{http_code}')
  [ -n "${TOKEN:-}" ] && args+=(-H "Authorization: Bearer $TOKEN")
  [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
  out=$(curl "${args[@]}" "$RAPPORT_URL$path") || return 1
  status=${out##*$'\n'}
  out=${out%$'\n'*}
  if [[ $status != 2?? ]]; then
    echo "$method $path answered $status: $out" >&2
    return 1
  fi
  printf '%s\n' "$out"
}

# register_user: a fresh user and company; sets TOKEN to data.token, USER_ID
# and COMPANY_ID (the tenant) to data.user.id and data.user.company_id.
register_user() {
  local body answer
  body='{"name":"Bench","email":"bench-'$RANDOM$RANDOM'@example.com","password":"correct horse battery",'
  body+='"password_confirmation":"correct horse battery","company_name":"Bench Ltd"}'
  TOKEN="" USER_ID="" COMPANY_ID=""
  answer=$(api POST /v1/auth/register "$body") || return 1
  TOKEN=$(printf '%s' "$answer" | json_string token)
  [ -n "$TOKEN" ] || { echo "no data.token in the register answer: $answer" >&2; return 1; }
  # data.user is the only object with an "id" and a "company_id" in the answer.
  USER_ID=$(printf '%s' "$answer" | json_string id)
  COMPANY_ID=$(printf '%s' "$answer" | json_string company_id)
  [[ $USER_ID == user_* && $COMPANY_ID == comp_* ]] ||
    { echo "no data.user.id or company_id in the register answer: $answer" >&2; return 1; }
}

# create_api_key NAME SCOPES: an API key of the run's company (decisions
# §15), created with the run's token, holding SCOPES (comma-separated, e.g.
# "contacts:read"); prints the key (rk_...), which only this answer shows.
create_api_key() {
  local name=$1 scopes=$2 answer key
  scopes="\"${scopes//,/\",\"}\""
  answer=$(api POST /v1/api-keys "{\"name\":\"$name\",\"scopes\":[$scopes]}") || return 1
  key=$(printf '%s' "$answer" | json_string key)
  [[ $key == rk_* ]] || { echo "no data.key in the POST /v1/api-keys answer: $answer" >&2; return 1; }
  printf '%s\n' "$key"
}
