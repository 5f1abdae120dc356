#!/usr/bin/env bash
# package.deb: the Debian packages as an operator gets them (issue 11,
# packaging/Packaging.cmake, docs/package.md).
#   deb_test.sh BUILD_DIR SOURCE_DIR VERSION MODULES
# MODULES: the first-party modules, comma-separated (the package ships
# exactly these).
#
# 1. Builds both packages with cpack from BUILD_DIR (its CPackConfig.cmake).
# 2. rapport: its file list (rapportd, every first-party module and nothing
#    else in the modules folder, the private SDK library, the unit, the
#    configuration), its conffiles, maintainer scripts and control fields.
#    rapport-sdk: headers, library, the CMake package, the template, and
#    "Depends: rapport (= VERSION)".
# 3. Extracts rapport into a temporary root: the packaged configuration is the
#    development one but for the packaged paths; `ldd` resolves rapportd from
#    that root alone; `systemd-analyze verify` accepts the unit there (and
#    refuses a broken copy, so the verifier does look).
# 4. Starts that rapportd with the packaged configuration, its paths moved
#    into the temporary root by RAPPORT_* variables, on SQLite and on
#    PostgreSQL (the ctest fixture "postgres"): /readyz, /v1/versions, each
#    packaged module loaded from the root and answering its list route for a
#    new account, then SIGTERM and exit 0.
# 5. Only with CI=true, as root, where systemd does not run and nothing named
#    rapport is installed: dpkg -i of both packages (user, state folder,
#    enablement; the installed rapportd migrates as the rapport user), then
#    dpkg --purge, and the user it created is deleted again.
# The work folder, BUILD_DIR/package-deb, is removed when every check passed
# and kept (for reading) when one failed. Prints "N passed, N failed".
set -euo pipefail
build=$1 source=$2 version=$3 modules_csv=$4
IFS=, read -r -a modules <<<"$modules_csv"
work=$build/package-deb
rm -rf "$work"
mkdir -p "$work"
# shellcheck source=../support/checks.sh
source "$(dirname "$0")/../support/checks.sh"
skip() { echo "skip $1"; }
# The list route each first-party module serves (GET, with a token): proof
# that the module is loaded and serving. A new module adds its own here.
declare -A list_route=(
  [activities]=/v1/crm/activities [companies]=/v1/crm/companies [contacts]=/v1/crm/contacts
  [deals]=/v1/crm/deals [pipelines]=/v1/crm/pipelines [webhooks]=/v1/webhooks)

# ---------------------------------------------------------------- 1. cpack
arch=$(dpkg --print-architecture)
server_deb=$work/out/rapport_${version}_${arch}.deb
sdk_deb=$work/out/rapport-sdk_${version}_${arch}.deb
check "cpack -G DEB builds the packages" \
  cpack -G DEB -B "$work/out" --config "$build/CPackConfig.cmake"
check "rapport_${version}_${arch}.deb is built" test -f "$server_deb"
check "rapport-sdk_${version}_${arch}.deb is built" test -f "$sdk_deb"
if [ ! -f "$server_deb" ] || [ ! -f "$sdk_deb" ]; then
  echo "$passed passed, $failed failed"; echo "kept for reading: $work"; exit 1
fi

# ---------------------------------------------------------------- 2. contents
# Paths as dpkg-deb -c lists them ("./usr/sbin/rapportd"), one a line.
dpkg-deb -c "$server_deb" | awk '{print $6}' >"$work/server.files"
dpkg-deb -c "$sdk_deb" | awk '{print $6}' >"$work/sdk.files"
lists() { grep -qx "$2" "$1" || { echo "$2 missing from:"; cat "$1"; return 1; }; }
check "rapport has /usr/sbin/rapportd" lists "$work/server.files" ./usr/sbin/rapportd
for module in "${modules[@]}"; do
  check "rapport has the module $module" \
    lists "$work/server.files" "./usr/lib/rapport/modules/rapport_$module.so"
done
only_first_party() {  # the modules folder holds the first-party modules, nothing else
  local expected actual
  expected=$(printf './usr/lib/rapport/modules/rapport_%s.so\n' "${modules[@]}" | sort)
  actual=$(grep '^\./usr/lib/rapport/modules/.' "$work/server.files" | sort)
  [ "$expected" = "$actual" ] || { diff <(echo "$expected") <(echo "$actual"); return 1; }
}
check "rapport's modules folder holds only the first-party modules" only_first_party
sdk_library=$(grep -o 'librapport_sdk\.so\.[0-9]*$' "$work/server.files" | head -1 || true)
check "rapport has the SDK library it runs with (/usr/lib/rapport/librapport_sdk.so.N)" \
  test -n "$sdk_library"
check "rapport has the unit /lib/systemd/system/rapport.service" \
  lists "$work/server.files" ./lib/systemd/system/rapport.service
check "rapport has /etc/rapport/rapport.properties" \
  lists "$work/server.files" ./etc/rapport/rapport.properties
for pair in rapport:server rapport-sdk:sdk; do
  for doc in copyright changelog.gz; do
    check "${pair%%:*} has /usr/share/doc/${pair%%:*}/$doc" \
      lists "$work/${pair#*:}.files" "./usr/share/doc/${pair%%:*}/$doc"
  done
done
check "the changelog names this version" \
  bash -c "dpkg-deb --fsys-tarfile '$server_deb' | tar -xO ./usr/share/doc/rapport/changelog.gz |
           gzip -dc | head -1 | grep -q '^rapport ($version) '"
check "rapport has no header and no CMake file" \
  bash -c "! grep -E '^\./usr/include/|\.cmake\$' '$work/server.files'"
dpkg-deb -e "$server_deb" "$work/control"
check "conffiles lists exactly /etc/rapport/rapport.properties" \
  diff <(printf '/etc/rapport/rapport.properties\n') "$work/control/conffiles"
for script in postinst prerm postrm; do
  check "rapport has an executable $script" test -x "$work/control/$script"
done
field() { dpkg-deb -f "$1" "$2"; }
check "rapport is named rapport, version $version" \
  test "$(field "$server_deb" Package) $(field "$server_deb" Version)" = "rapport $version"
check "rapport depends on adduser and the libraries rapportd links (dpkg-shlibdeps)" \
  bash -c "field=\$(dpkg-deb -f '$server_deb' Depends); echo \"\$field\";
           for d in adduser libpocofoundation80 libpq5 libsqlite3-0 libssl3 libargon2-1 liboath0 libc6; do
             grep -Eq \"(^|, )\$d( |,|\$)\" <<<\"\$field\" || { echo \"no \$d\"; exit 1; }; done"
check "rapport-sdk depends on rapport (= $version)" \
  bash -c "dpkg-deb -f '$sdk_deb' Depends | grep -Eq '(^|, )rapport \\(= $version\\)(,|\$)'"
check "rapport-sdk has the headers (rapport/sdk.h, rapport/abi.h)" bash -c \
  "grep -qx ./usr/include/rapport/sdk.h '$work/sdk.files' && grep -qx ./usr/include/rapport/abi.h '$work/sdk.files'"
for file in RapportSdkConfig.cmake RapportSdkConfigVersion.cmake RapportSdkTargets.cmake RapportSdk.cmake; do
  check "rapport-sdk has the CMake package file $file" \
    grep -q "/cmake/RapportSdk/$file\$" "$work/sdk.files"
done
check "rapport-sdk has the library and its link (librapport_sdk.so)" bash -c \
  "grep -q '/librapport_sdk\\.so\$' '$work/sdk.files' && grep -q '/librapport_sdk\\.so\\.[0-9.]*\$' '$work/sdk.files'"
check "rapport-sdk has the module template" \
  grep -q '/share/rapport/sdk-template/CMakeLists.txt$' "$work/sdk.files"
check "rapport-sdk has no module and no rapportd" \
  bash -c "! grep -E '/rapport_[a-z_]+\\.so\$|/rapportd\$' '$work/sdk.files'"

# ---------------------------------------------------------------- 3. extracted
root=$work/root
dpkg-deb -x "$server_deb" "$root"
conf=$root/etc/rapport/rapport.properties
# key=value lines without comments or spaces, sorted, minus the given keys.
settings() {  # settings FILE [KEY...]
  local file=$1
  shift
  sed -e 's/#.*//' -e 's/[[:space:]]*=[[:space:]]*/=/' -e 's/[[:space:]]*$//' "$file" | grep . |
    grep -v -E "^($(IFS='|'; echo "${*:-^}"))=" | sort
}
packaged_paths=(database.url modules.dir mail.outbox secrets.key_file)
check "the packaged configuration is config/rapport.properties but for the packaged paths" \
  diff <(settings "$source/config/rapport.properties" "${packaged_paths[@]}") \
  <(settings "$conf" "${packaged_paths[@]}")
check "the packaged paths are /var/lib/rapport and /usr/lib/rapport/modules" \
  diff <(printf '%s\n' database.url=sqlite:/var/lib/rapport/rapport.db \
    mail.outbox=/var/lib/rapport/outbox modules.dir=/usr/lib/rapport/modules \
    secrets.key_file=/var/lib/rapport/secret.key) \
  <(settings "$conf" | grep -E "^($(IFS='|'; echo "${packaged_paths[*]}"))=")
resolves_in_root() {  # ldd resolves every library, the SDK from the root
  local out found
  out=$(env -u LD_LIBRARY_PATH ldd "$1")
  echo "$out"
  ! grep -q 'not found' <<<"$out" || return 1
  found=$(awk -v lib="$sdk_library" '$1 == lib {print $3}' <<<"$out")
  [ -n "$found" ] && [ "$(realpath "$found")" = "$(realpath "$root/usr/lib/rapport/$sdk_library")" ]
}
check "ldd resolves the extracted rapportd, the SDK from the root" \
  resolves_in_root "$root/usr/sbin/rapportd"
check "ldd resolves an extracted module, the SDK from the root" \
  resolves_in_root "$root/usr/lib/rapport/modules/rapport_${modules[0]}.so"
unit=$root/lib/systemd/system/rapport.service
has_lines() {  # the unit has each line exactly
  local line missing=0
  for line in "$@"; do grep -qxF "$line" "$unit" || { echo "missing: $line"; missing=1; }; done
  return $missing
}
check "the unit runs rapportd as rapport with the packaged configuration" has_lines \
  "ExecStart=/usr/sbin/rapportd --config /etc/rapport/rapport.properties" "User=rapport" \
  "StateDirectory=rapport" "ConfigurationDirectory=rapport" "Restart=on-failure" \
  "KillSignal=SIGTERM" "WantedBy=multi-user.target"
check "the unit has the hardening" has_lines ProtectSystem=strict ProtectHome=true \
  PrivateTmp=true NoNewPrivileges=true PrivateDevices=true ProtectKernelTunables=true \
  ProtectKernelModules=true ProtectKernelLogs=true CapabilityBoundingSet= \
  "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX"
limit_covers_connections() {  # LimitNOFILE above server.max_connections' default
  local limit
  limit=$(sed -n 's/^LimitNOFILE=//p' "$unit")
  echo "LimitNOFILE=$limit"
  [ -n "$limit" ] && [ "$limit" -gt 10000 ]
}
check "LimitNOFILE leaves room for server.max_connections (10000)" limit_covers_connections
drain_fits() {  # TimeoutStopSec above rapportd's 10 s drain
  local limit
  limit=$(sed -n 's/^TimeoutStopSec=//p' "$unit")
  echo "TimeoutStopSec=$limit"
  [ -n "$limit" ] && [ "$limit" -gt 10 ]
}
check "TimeoutStopSec is above the 10 s drain" drain_fits
# verify in the extracted root (ExecStart's binary is looked up there). The
# root holds no systemd, so the default dependencies (sysinit.target...)
# cannot load: --recursive-errors=no verifies rapport.service alone.
verify() {  # verify ROOT: accepted without a word
  local out
  out=$(systemd-analyze verify --recursive-errors=no --root="$1" rapport.service 2>&1) || {
    echo "$out"; return 1; }
  [ -z "$out" ] || { echo "$out"; return 1; }
}
check "systemd-analyze verify accepts the unit" verify "$root"
broken=$work/broken-root
mkdir -p "$broken/lib/systemd/system" "$broken/usr"
cp -a "$root/usr/sbin" "$broken/usr/"
sed 's/^NoNewPrivileges=true$/&\nNoSuchSetting=1/' "$unit" >"$broken/lib/systemd/system/rapport.service"
refuses_broken() {
  local out
  if out=$(systemd-analyze verify --recursive-errors=no --root="$broken" rapport.service 2>&1); then
    echo "accepted: $out"; return 1
  fi
  grep -q "Unknown key 'NoSuchSetting'" <<<"$out" || { echo "$out"; return 1; }
}
check "systemd-analyze verify refuses a copy with an unknown key" refuses_broken

# ---------------------------------------------------------------- 4. run it
pg_url=${RAPPORT_TEST_PG_URL:-$(cat "$build/pg/url" 2>/dev/null || true)}
pid=""
stop_server() { if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; pid=""; fi; }
trap stop_server EXIT
# Starts the extracted rapportd (packaged configuration, paths moved into
# STATE) with the given database URL, waits for its "listening" line.
start_server() {  # start_server STATE DATABASE_URL
  local state=$1 url=$2 deadline name inherited=()
  mkdir -p "$state"
  # Only the variables set here: an inherited RAPPORT_* would change the run.
  for name in $(compgen -e); do
    if [[ $name == RAPPORT_* ]]; then inherited+=(-u "$name"); fi
  done
  (cd "$state" && exec env "${inherited[@]}" \
    RAPPORT_DATABASE_URL="$url" RAPPORT_MODULES_DIR="$root/usr/lib/rapport/modules" \
    RAPPORT_MAIL_OUTBOX="$state/outbox" RAPPORT_SECRETS_KEY_FILE="$state/secret.key" \
    RAPPORT_SERVER_PORT=0 \
    "$root/usr/sbin/rapportd" --config "$conf" >"$state/rapportd.log" 2>&1) &
  pid=$!
  deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ]; do
    port=$(sed -n 's/.*msg=listening .*port=\([0-9]*\).*/\1/p' "$state/rapportd.log" | head -1)
    [ -n "$port" ] && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$state/rapportd.log"; pid=""; return 1; }
    sleep 0.2
  done
  cat "$state/rapportd.log"
  return 1
}
# GET or POST on the server; prints the status line's code, body into $work/body.
http() {  # http METHOD PATH [TOKEN] [JSON]
  local args=(-sS -o "$work/body" -w '%{http_code}' -X "$1")
  [ -n "${3:-}" ] && args+=(-H "Authorization: Bearer $3")
  [ -n "${4:-}" ] && args+=(-H 'Content-Type: application/json' --data "$4")
  curl "${args[@]}" "http://127.0.0.1:$port$2"
}
answers() {  # answers STATUS METHOD PATH [TOKEN] [JSON]
  local want=$1 got
  shift
  got=$(http "$@")
  [ "$got" = "$want" ] || { echo "$1 $2: $got, expected $want"; cat "$work/body"; return 1; }
}
json_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["data"][sys.argv[2]])' "$work/body" "$1"; }
serve_on() {  # serve_on ENGINE DATABASE_URL
  local engine=$1 url=$2 state=$work/state-$1 token module status
  port=""
  check "$engine: the extracted rapportd starts with the packaged configuration" \
    start_server "$state" "$url"
  [ -n "$port" ] || return 0
  check "$engine: no unknown configuration key or variable" \
    bash -c "! grep 'unknown configuration' '$state/rapportd.log'"
  check "$engine: GET /readyz is 200" answers 200 GET /readyz
  check "$engine: GET /v1/versions is 200 and lists v1" \
    bash -c "[ \"\$(curl -sS -o '$work/versions' -w '%{http_code}' http://127.0.0.1:$port/v1/versions)\" = 200 ] &&
             grep -q '\"v1\"' '$work/versions'"
  for module in "${modules[@]}"; do
    check "$engine: module $module started from the extracted root" grep -qF \
      "msg=\"module started\" module=$module version=" "$state/rapportd.log"
    check "$engine: module $module's file is the packaged one" grep -q \
      "module=$module .*file=$root/usr/lib/rapport/modules/rapport_$module.so" "$state/rapportd.log"
  done
  local email="pkg-$engine-$RANDOM$RANDOM@example.com" password="correct horse $RANDOM$RANDOM"
  check "$engine: POST /v1/auth/register is 201" answers 201 POST /v1/auth/register "" \
    "{\"name\":\"Ada\",\"email\":\"$email\",\"password\":\"$password\",\"password_confirmation\":\"$password\",\"company_name\":\"Package Ltd\"}"
  token=$(json_field token 2>/dev/null || true)
  check "$engine: the registration gave a token" test -n "$token"
  for module in "${modules[@]}"; do
    if [ -z "${list_route[$module]:-}" ]; then
      check "$engine: module $module has a list route in deb_test.sh" false
      continue
    fi
    check "$engine: module $module serves GET ${list_route[$module]} (200)" \
      answers 200 GET "${list_route[$module]}" "$token"
  done
  check "$engine: GET /v1/crm/contacts without a token is 401" answers 401 GET /v1/crm/contacts
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  pid=""
  check "$engine: SIGTERM stops it with exit 0" test "$status" = 0
  check "$engine: it logged its clean stop" grep -q 'msg=stopped' "$state/rapportd.log"
}
serve_on sqlite "sqlite:$work/state-sqlite/rapport.db"
pg_database=""
if [ -n "$pg_url" ]; then
  pg_database=rapport_package_$$
  check "postgresql: create a database for the package" \
    psql -X -q -v ON_ERROR_STOP=1 "$pg_url" -c "CREATE DATABASE $pg_database"
  serve_on postgresql "${pg_url%/*}/$pg_database"
  psql -X -q "$pg_url" -c "DROP DATABASE IF EXISTS $pg_database" >/dev/null 2>&1 || true
else
  check "postgresql: the ctest PostgreSQL is running (fixture postgres)" false
fi

# ---------------------------------------------------------------- 5. dpkg -i
# On a throw-away CI machine only, and only when it is cleanly reversible.
install_cycle_allowed() {
  [ "${CI:-}" = true ] && [ "$(id -u)" = 0 ] && [ ! -d /run/systemd/system ] &&
    ! dpkg-query -W -f='${Status}' rapport rapport-sdk 2>/dev/null | grep -q installed &&
    ! getent passwd rapport >/dev/null && ! getent group rapport >/dev/null &&
    [ ! -e /var/lib/rapport ] && [ ! -e /etc/rapport ]
}
undo_install() {
  dpkg --purge rapport-sdk rapport >/dev/null 2>&1 || true
  if getent passwd rapport >/dev/null; then deluser --system rapport >/dev/null 2>&1 || true; fi
  if getent group rapport >/dev/null; then delgroup --system rapport >/dev/null 2>&1 || true; fi
}
if install_cycle_allowed; then
  trap 'stop_server; undo_install' EXIT
  check "dpkg -i installs both packages (no systemd running)" dpkg -i "$server_deb" "$sdk_deb"
  check "postinst created the system user rapport (home /var/lib/rapport, no login shell)" bash -c \
    "getent passwd rapport | grep -Eq '^rapport:x:[0-9]+:[0-9]+:[^:]*:/var/lib/rapport:/usr/sbin/nologin\$'"
  check "/var/lib/rapport belongs to rapport, mode 750" \
    test "$(stat -c '%U:%G %a' /var/lib/rapport 2>/dev/null)" = "rapport:rapport 750"
  check "the service is enabled (multi-user.target.wants)" \
    test -L /etc/systemd/system/multi-user.target.wants/rapport.service
  check "ldd resolves the installed rapportd" \
    bash -c "! env -u LD_LIBRARY_PATH ldd /usr/sbin/rapportd | grep 'not found'"
  check "the installed rapportd migrates as rapport with the packaged configuration" \
    bash -c "cd /var/lib/rapport && runuser -u rapport -- /usr/sbin/rapportd \
             --config /etc/rapport/rapport.properties migrate | grep -q 'migrations applied'"
  check "the database is /var/lib/rapport/rapport.db, owned by rapport" \
    test "$(stat -c %U /var/lib/rapport/rapport.db 2>/dev/null)" = rapport
  # The upgrade path (prerm upgrade, postinst configure OLD-VERSION) with an
  # administrator's edit in the conffile: dpkg keeps it, the user stays.
  sed -i 's/^log.level = info$/log.level = debug/' /etc/rapport/rapport.properties
  check "dpkg -i again (the upgrade path) succeeds" dpkg -i "$server_deb"
  check "the upgrade kept the edited conffile" \
    grep -qx 'log.level = debug' /etc/rapport/rapport.properties
  check "the upgrade kept the database" test -f /var/lib/rapport/rapport.db
  check "dpkg --purge removes both" dpkg --purge rapport-sdk rapport
  check "purge removed /var/lib/rapport, /etc/rapport and the enablement" bash -c \
    "[ ! -e /var/lib/rapport ] && [ ! -e /etc/rapport ] &&
     [ ! -e /etc/systemd/system/multi-user.target.wants/rapport.service ]"
  undo_install
  trap stop_server EXIT
  check "the machine is as before (no rapport user, group or package)" bash -c \
    "! getent passwd rapport && ! getent group rapport &&
     ! dpkg-query -W -f='\${Status}' rapport 2>/dev/null | grep -q installed"
else
  skip "dpkg -i / --purge cycle (only with CI=true, as root, without systemd running, nothing named rapport present)"
fi

echo "$passed passed, $failed failed"
if [ "$failed" -eq 0 ]; then
  rm -rf "$work"
else
  echo "kept for reading: $work"
  exit 1
fi
