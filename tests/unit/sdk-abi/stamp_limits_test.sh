#!/usr/bin/env bash
# sdk.stamp_limits: RAPPORT_MODULE's compile-time limits (abi.h). A name of 63
# characters and a version of 31 compile; one more character, or an empty
# name, fails with the static_assert's message.
#   stamp_limits_test.sh <CXX> <sdk/include>
set -euo pipefail
cxx=${1:?usage: stamp_limits_test.sh <CXX> <sdk/include>}
include=${2:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# compile NAME VERSION: 0 when a module declared with them compiles.
compile() {
  cat >"$work/m.cpp" <<CPP
#include "rapport/abi.h"
namespace {
class M final : public rapport::Module {
 public:
  rapport::ModuleInfo info() const override { return {}; }
  void setup(rapport::Host&, rapport::Registry&) override {}
};
}  // namespace
RAPPORT_MODULE(M, "$1", "$2")
CPP
  "$cxx" -std=c++20 -fsyntax-only -I "$include" "$work/m.cpp" >"$work/out.log" 2>&1
}

name63=$(printf 'n%.0s' $(seq 63))
version31=$(printf '1%.0s' $(seq 31))
compile "$name63" "$version31" || { cat "$work/out.log"; fail "63/31 characters did not compile"; }

compile "${name63}x" "1.0.0" && fail "a 64-character name compiled"
grep -q "the module name must be a string literal of 1 to 63 characters" "$work/out.log" ||
  { cat "$work/out.log"; fail "no clear message for a long name"; }

compile "" "1.0.0" && fail "an empty name compiled"
grep -q "the module name must be a string literal of 1 to 63 characters" "$work/out.log" ||
  { cat "$work/out.log"; fail "no clear message for an empty name"; }

compile "m" "${version31}1" && fail "a 32-character version compiled"
grep -q "the module version must be a string literal of at most 31 characters" "$work/out.log" ||
  { cat "$work/out.log"; fail "no clear message for a long version"; }
echo "stamp limits: all cases passed"
