#!/usr/bin/env bash
# e2e.sdk: the SDK as a third party gets it (issue 9, "Installed SDK").
#   install_test.sh BUILD_DIR SOURCE_DIR CXX_COMPILER ABI_MAJOR ABI_MINOR
# Installs the SDK component of BUILD_DIR into a temporary prefix, checks the
# one version story (soname number = ABI major), builds tests/e2e/sdk/outoftree
# against the installed package alone, serves its route through rapportd, and
# checks the package's refusals: another major version, another compiler.
set -euo pipefail
build=$1 source=$2 cxx=$3 major=$4 minor=$5
work=$(mktemp -d)
server=""
# (Never `kill 0`: that would signal the whole process group, ctest included.)
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
passed=0 failed=0
check() {  # check NAME COMMAND...: runs COMMAND, counts the outcome
  local name=$1
  shift
  if "$@" >"$work/last.log" 2>&1; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name"; sed 's/^/     /' "$work/last.log" | tail -20
  fi
}
refuses() {  # refuses PATTERN COMMAND...: COMMAND fails and says PATTERN
  local pattern=$1
  shift
  if "$@" >"$work/refusal.log" 2>&1; then echo "accepted, expected a refusal"; return 1; fi
  grep -q "$pattern" "$work/refusal.log" || { cat "$work/refusal.log"; return 1; }
}

prefix=$work/prefix
check "install the sdk component" cmake --install "$build" --prefix "$prefix" --component sdk
library=$(find "$prefix" -name "librapport_sdk.so.$major.$minor.0" | head -1)
check "library version is the ABI version ($major.$minor.0)" test -n "$library"
check "soname number is the ABI major" \
  bash -c "readelf -d '$library' | grep -q 'SONAME.*\\[librapport_sdk.so.$major\\]'"
check "only the SDK is installed" bash -c "! find '$prefix' -name 'rapport_*.so' | grep -q ."

configure() {  # configure DIR PREFIX WANTED
  cmake -S "$source/tests/e2e/sdk/outoftree" -B "$1" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_PREFIX_PATH="$2" -DRAPPORT_SDK_WANTED="$3" -DCMAKE_BUILD_TYPE=Release
}
module_build=$work/hello
check "configure against the installed package" configure "$module_build" "$prefix" "$major.0"
check "build the module" cmake --build "$module_build" -j2
check "the module needs librapport_sdk.so.$major" \
  bash -c "readelf -d '$module_build/modules/rapport_hello.so' | grep -q 'NEEDED.*\\[librapport_sdk.so.$major\\]'"

# rapportd (this build) loads it by configuration and serves its route
# inside the host's pipeline (rate-limit headers, request id).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/run"
(cd "$work/run" && RAPPORT_SERVER_PORT=$port RAPPORT_MODULES_DIR="$module_build/modules" \
  RAPPORT_MODULES_ENABLED=hello RAPPORT_DATABASE_URL="sqlite:$work/run/rapport.db" \
  exec "$build/rapportd" --config /dev/null >"$work/rapportd.log" 2>&1) &
server=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
check "rapportd serves the module's route" bash -c \
  "curl -sfi http://127.0.0.1:$port/v1/hello | tee '$work/hello.txt' | grep -q '\"greeting\":\"hello\"' &&
   grep -qi '^X-RateLimit-Limit:' '$work/hello.txt' && grep -qi '^X-Request-Id:' '$work/hello.txt'"
kill "$server" && wait "$server" || true
server=""

check "another major version is refused" \
  refuses "RapportSdk" configure "$work/next" "$prefix" "$((major + 1)).0"
if [ "$major" -gt 1 ]; then
  check "an older major version is refused" \
    refuses "RapportSdk" configure "$work/older" "$prefix" "$((major - 1)).0"
fi
# The compiler check: the same package, as if built by another compiler version.
cp -r "$prefix" "$work/other"
sed -i 's/^set(RAPPORT_SDK_COMPILER_MAJOR "[0-9]*")/set(RAPPORT_SDK_COMPILER_MAJOR "1")/' \
  "$(find "$work/other" -name RapportSdkConfig.cmake)"
check "another compiler is refused at configure time" \
  refuses "the Rapport SDK was built with .* 1, this project uses" \
  configure "$work/compiler" "$work/other" "$major.0"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
