#!/usr/bin/env bash
# e2e.sdk: the SDK as a third party gets it (issue 9, "Installed SDK").
#   install_test.sh BUILD_DIR SOURCE_DIR CXX_COMPILER ABI_MAJOR ABI_MINOR [COMPILER_LAUNCHER]
#
# 1. Installs the SDK component of BUILD_DIR into a new prefix and checks the
#    one version story (soname number = ABI major = package major = abi.h).
# 2. Copies examples/products out of the tree and builds it against the
#    prefix alone: every path in its compile and link commands is the copy,
#    its build, the prefix or the system (never the source or build tree);
#    the module needs the SDK and the C/C++ runtime only.
# 3. Runs the example's own harness tests there with ctest, on SQLite and on
#    PostgreSQL (RAPPORT_TEST_DATABASE_URL = the ctest "postgres" fixture's
#    server, BUILD_DIR/pg/url), and checks that they do use that variable (a
#    server that is not there fails them).
# 4. Copies the installed sdk-template, builds it and runs its test (both
#    engines).
# 5. The package's refusals: another major version, a newer minor, another
#    compiler.
# It leaves the built module in BUILD_DIR/e2e-sdk/modules/rapport_products.so
# for e2e.products (ctest fixture "products_module"); the work folder,
# BUILD_DIR/e2e-sdk/work, is removed when every check passed and kept (for
# reading) when one failed. Prints "N passed, N failed".
set -euo pipefail
build=$1 source=$2 cxx=$3 major=$4 minor=$5 launcher=${6:-}
root=$build/e2e-sdk
work=$root/work
rm -rf "$work" "$root/modules"
mkdir -p "$work" "$root/modules"
# shellcheck source=../../support/checks.sh
source "$(dirname "$0")/../../support/checks.sh"
refuses() {  # refuses PATTERN COMMAND...: COMMAND fails and says PATTERN
  local pattern=$1
  shift
  if "$@" >"$work/refusal.log" 2>&1; then echo "accepted, expected a refusal"; return 1; fi
  grep -q "$pattern" "$work/refusal.log" || { cat "$work/refusal.log"; return 1; }
}
# A module project configured against PREFIX alone, as a third party does.
configure() {  # configure SOURCE BUILD PREFIX [-DVAR=VALUE...]
  local from=$1 to=$2 prefix=$3
  shift 3
  cmake -S "$from" -B "$to" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"} "$@"
}
# ctest in a module's build folder; at least one test, every one passing.
module_tests() {  # module_tests BUILD [VAR=VALUE...]: runs with that environment
  local dir=$1
  shift
  env -u RAPPORT_TEST_DATABASE_URL -u RAPPORT_TEST_MODULE_DIRS "$@" \
    ctest --test-dir "$dir" --output-on-failure --no-tests=error --timeout 300
}
# Every absolute path in the given files lies under one of the allowed roots.
paths_within() {  # paths_within "ROOT..." FILE...
  python3 - "$@" <<'PY'
import re, sys
roots = sys.argv[1].split()
found = set()
for name in sys.argv[2:]:
    text = open(name).read()
    # A path starts a token or follows "=", ",", ":", a quote, -I or -L.
    for match in re.finditer(r'(?:^|(?<=[\s=,:"\'])|(?<=-I)|(?<=-L))(/[^\s"\',:;]+)', text, re.M):
        path = match.group(1)
        if not any(path == root or path.startswith(root.rstrip('/') + '/') for root in roots):
            found.add(path)
if found:
    print("outside " + " ".join(roots) + ":\n  " + "\n  ".join(sorted(found)))
    sys.exit(1)
PY
}
# NEEDED entries of a shared object, one a line.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
needs() { needed "$1" | grep -qx "$2"; }  # needs FILE SONAME
# Nothing but the SDK and the C/C++ runtime.
needs_only_sdk() {
  local all others
  all=$(needed "$1") || return 1
  others=$(grep -v -x -e "librapport_sdk.so.$major" -e 'libstdc++.so.6' -e 'libm.so.6' \
    -e 'libgcc_s.so.1' -e 'libc.so.6' <<<"$all" || true)
  [ -z "$others" ] || { echo "also needs: $others"; return 1; }
}
system_roots="/usr /lib /lib64"

# ---------------------------------------------------------------- 1. install
prefix=$work/prefix
check "install the sdk component" cmake --install "$build" --prefix "$prefix" --component sdk
library=$(find "$prefix" -name "librapport_sdk.so.$major.$minor.0" | head -1)
check "library version is the ABI version ($major.$minor.0)" test -n "$library"
check "soname number is the ABI major" \
  bash -c "readelf -d '$library' | grep -q 'SONAME.*\\[librapport_sdk.so.$major\\]'"
check "installed abi.h says $major.$minor" bash -c \
  "grep -q '^#define RAPPORT_SDK_ABI_MAJOR $major\$' '$prefix/include/rapport/abi.h' &&
   grep -q '^#define RAPPORT_SDK_ABI_MINOR $minor\$' '$prefix/include/rapport/abi.h'"
check "package version is $major.$minor.0" bash -c \
  "grep -q 'set(PACKAGE_VERSION \"$major.$minor.0\")' \"\$(find '$prefix' -name RapportSdkConfigVersion.cmake)\""
check "the harness library is installed" bash -c "find '$prefix' -name 'librapport_testing.so*' | grep -q ."
check "the testing.h header is installed" test -f "$prefix/include/rapport/testing.h"
check "no module is installed with the SDK" bash -c "! find '$prefix' -name 'rapport_*.so' | grep -q ."
check "no host header is installed" bash -c "! find '$prefix/include' -mindepth 1 -maxdepth 1 ! -name rapport | grep -q ."

# ---------------------------------------------------------------- 2. build examples/products
products_src=$work/products
products=$work/products-build
check "copy examples/products out of the tree" cp -r "$source/examples/products" "$products_src"
rm -rf "$products_src/build"
check "configure examples/products against the prefix" configure "$products_src" "$products" "$prefix"
check "build examples/products" cmake --build "$products" -j2
module=$products/modules/rapport_products.so
check "the module is built (rapport_products.so)" test -f "$module"
check "compile commands use the prefix and the copy only" \
  paths_within "$work $system_roots" "$products/compile_commands.json"
mapfile -t link_files < <(find "$products" -name link.txt)
check "link commands use the prefix and the copy only" \
  paths_within "$work $system_roots" "${link_files[@]}"
check "the module needs librapport_sdk.so.$major" needs "$module" "librapport_sdk.so.$major"
check "the module needs nothing else but the C/C++ runtime" needs_only_sdk "$module"

# ---------------------------------------------------------------- 3. its harness tests
pg_url_file=$build/pg/url
check "the ctest PostgreSQL is running (fixture postgres)" test -s "$pg_url_file"
pg_url=$(cat "$pg_url_file" 2>/dev/null || true)
check "examples/products tests pass on SQLite" module_tests "$products"
check "examples/products tests pass on PostgreSQL" \
  module_tests "$products" RAPPORT_TEST_DATABASE_URL="$pg_url"
# Port 1 on loopback: nothing listens there, so the tests fail trying to
# reach it (had they ignored the variable, they would pass on SQLite).
check "examples/products tests do use RAPPORT_TEST_DATABASE_URL" \
  refuses "port 1 failed: Connection refused" \
  module_tests "$products" RAPPORT_TEST_DATABASE_URL=postgresql://rapport@127.0.0.1:1/postgres
if [ -f "$module" ]; then cp "$module" "$root/modules/"; fi

# ---------------------------------------------------------------- 4. the template
template_src=$work/template
template=$work/template-build
check "copy the installed sdk-template (share/rapport/sdk-template)" \
  cp -r "$prefix/share/rapport/sdk-template" "$template_src"
check "configure a copy of the template" configure "$template_src" "$template" "$prefix"
check "build the template" cmake --build "$template" -j2
check "template compile commands use the prefix and the copy only" \
  paths_within "$work $system_roots" "$template/compile_commands.json"
check "the template's test passes on SQLite" module_tests "$template"
check "the template's test passes on PostgreSQL" \
  module_tests "$template" RAPPORT_TEST_DATABASE_URL="$pg_url"

# ---------------------------------------------------------------- 5. refusals
# The smallest consumer: find_package(RapportSdk <wanted>) and nothing else.
wanted_src=$work/wanted
mkdir -p "$wanted_src"
cat >"$wanted_src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(wanted LANGUAGES CXX)
find_package(RapportSdk ${RAPPORT_SDK_WANTED} REQUIRED)
message(STATUS "RapportSdk ${RapportSdk_VERSION} found")
CMAKE
wants() {  # wants BUILD PREFIX VERSION
  configure "$wanted_src" "$1" "$2" -DRAPPORT_SDK_WANTED="$3"
}
accepts() {  # accepts PATTERN COMMAND...: COMMAND succeeds and says PATTERN
  local pattern=$1
  shift
  "$@" >"$work/accepted.log" 2>&1 || { cat "$work/accepted.log"; return 1; }
  grep -q "$pattern" "$work/accepted.log" || { cat "$work/accepted.log"; return 1; }
}
check "the same major version is accepted ($major.0)" \
  accepts "RapportSdk $major.$minor.0 found" wants "$work/same" "$prefix" "$major.0"
check "another major version is refused" \
  refuses "RapportSdk" wants "$work/next" "$prefix" "$((major + 1)).0"
if [ "$major" -gt 1 ]; then
  check "an older major version is refused" \
    refuses "RapportSdk" wants "$work/older" "$prefix" "$((major - 1)).0"
fi
check "a newer minor version is refused" \
  refuses "RapportSdk" wants "$work/newer" "$prefix" "$major.$((minor + 1))"
# The compiler check: the same package, as if built by another compiler version.
cp -r "$prefix" "$work/other"
sed -i 's/^set(RAPPORT_SDK_COMPILER_MAJOR "[0-9]*")/set(RAPPORT_SDK_COMPILER_MAJOR "1")/' \
  "$(find "$work/other" -name RapportSdkConfig.cmake)"
check "another compiler is refused at configure time" \
  refuses "the Rapport SDK was built with .* 1, this project uses" \
  wants "$work/compiler" "$work/other" "$major.0"

echo "$passed passed, $failed failed"
if [ "$failed" -eq 0 ]; then
  rm -rf "$work"
else
  echo "kept for reading: $work"
  rm -f "$root/modules/rapport_products.so"
  exit 1
fi
