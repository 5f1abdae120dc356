# shellcheck shell=bash
# The scenarios bench/run.sh measures on each engine (sourced by run.sh).
#
# One line per scenario:   NAME  ACCESS  METHOD  PATH  [BODY...]
#   NAME    letters, digits and "_" (used in log file names and --scenarios)
#   ACCESS  public: no credentials; token: "Authorization: Bearer <token>" of
#           the user run.sh registers on each engine
#   BODY    the rest of the line, sent as application/json
#
# Each scenario is checked once with curl (it must answer 2xx), measured with
# wrk, then run through the per-connection check (docs/performance.md).
#
# A scenario that needs data or a computed path also defines a function
# prepare_<NAME>, called once per engine after registration and before the
# measurement. It may seed data with `api` (lib/api.sh) and set:
#   SCN_PATH, SCN_BODY   the request
#   SCN_MAX_GAP_MS       longest wait without a response on one connection
#                        in the check (default --max-gap, 1000 ms)
#   SCN_TIMEOUT          wrk --timeout for a slow request (default 2s)
# Example, GET one contact:
#   "contact_get  token  GET  /v1/contacts/ID"
#   prepare_contact_get() {
#     SCN_PATH="/v1/contacts/$(api POST /v1/contacts '{"first_name":"Ada"}' | json_string id)"
#   }
# shellcheck disable=SC2034 # read by run.sh
SCENARIOS=(
  "versions  public  GET  /v1/versions"
  "me        token   GET  /v1/auth/me"
)
