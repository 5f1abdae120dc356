#!/usr/bin/env bash
# The fingerprint of the SDK's public headers, per SDK ABI version, so that an
# ABI change cannot land without a version change (abi.h states the rule).
#
#   sdk/abi/fingerprint.sh            check: the headers' fingerprint equals the
#                                     one recorded for abi.h's MAJOR.MINOR
#   sdk/abi/fingerprint.sh --record   append "MAJOR.MINOR sha256" for abi.h's
#                                     version; an existing line is never changed
#   sdk/abi/fingerprint.sh --print    print the current fingerprint
# Options (tests): --include DIR (default sdk/include), --fingerprints FILE
# (default sdk/abi/fingerprints). CXX names the compiler (default g++).
#
# What counts: every sdk/include/rapport/**/*.h, in sorted path order, with its
# path. Comments are removed by the compiler's own preprocessor
# (`$CXX -fpreprocessed -dD -E -P`: it knows string literals, so a "//" inside
# one stays, and it expands nothing, so the text is the header's own), then
# every run of white space becomes one space. Editing a comment, re-indenting
# or re-wrapping lines leaves the fingerprint alone; any change to a token
# (a declaration, a macro, a default, abi.h's version) changes it. The
# fingerprints are recorded with GCC's preprocessor (Debian 12: g++ 12).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
include_dir=$(cd "$here/.." && pwd)/include
fingerprints=$here/fingerprints
mode=check
while [ $# -gt 0 ]; do
  case "$1" in
    --record) mode=record ;;
    --print) mode=print ;;
    --check) mode=check ;;
    --include) include_dir=$2; shift ;;
    --fingerprints) fingerprints=$2; shift ;;
    *) echo "usage: $0 [--check|--record|--print] [--include DIR] [--fingerprints FILE]" >&2
       exit 2 ;;
  esac
  shift
done
cxx=${CXX:-g++}
abi_h=$include_dir/rapport/abi.h
script="sdk/abi/fingerprint.sh"

abi_number() {
  sed -n "s/^#define RAPPORT_SDK_ABI_$1 \([0-9][0-9]*\)\$/\1/p" "$abi_h"
}
major=$(abi_number MAJOR)
minor=$(abi_number MINOR)
if [ -z "$major" ] || [ -z "$minor" ]; then
  echo "$script: cannot read RAPPORT_SDK_ABI_MAJOR/MINOR from $abi_h" >&2
  exit 2
fi
version=$major.$minor

fingerprint() {
  local header
  (cd "$include_dir" && find rapport -name '*.h' -type f | LC_ALL=C sort) |
    while IFS= read -r header; do
      printf '== %s\n' "$header"
      "$cxx" -fpreprocessed -dD -E -P -w -x c++ "$include_dir/$header" | tr -s '[:space:]' ' ' ||
        { echo "$script: $cxx cannot read $header" >&2; exit 2; }
      printf '\n'
    done | sha256sum | cut -d' ' -f1
}

current=$(fingerprint)
recorded=""
if [ -f "$fingerprints" ]; then
  recorded=$(awk -v v="$version" '$1 == v { print $2; exit }' "$fingerprints")
fi

case "$mode" in
  print)
    echo "$version $current"
    ;;
  record)
    if [ -n "$recorded" ]; then
      if [ "$recorded" = "$current" ]; then
        echo "$script: $version is already recorded with this fingerprint; nothing to do"
        exit 0
      fi
      echo "$script: refusing to change the fingerprint recorded for SDK ABI $version" \
        "($recorded, the headers now give $current): a released version's headers do not" \
        "change. Bump RAPPORT_SDK_ABI_MINOR (a compatible change) or RAPPORT_SDK_ABI_MAJOR in" \
        "sdk/include/rapport/abi.h, following the rule written there, then run $script --record" >&2
      exit 1
    fi
    echo "$version $current" >>"$fingerprints"
    echo "$script: recorded $version $current in $fingerprints"
    ;;
  check)
    if [ -z "$recorded" ]; then
      echo "$script: no fingerprint recorded for SDK ABI $version in $fingerprints: once the" \
        "headers of $version are final, run $script --record" >&2
      exit 1
    fi
    if [ "$recorded" != "$current" ]; then
      echo "$script: the public SDK headers changed but abi.h still says $version (recorded" \
        "$recorded, now $current). Bump RAPPORT_SDK_ABI_MINOR (a compatible change) or" \
        "RAPPORT_SDK_ABI_MAJOR in sdk/include/rapport/abi.h, following the rule written there," \
        "then run $script --record" >&2
      exit 1
    fi
    echo "$script: SDK ABI $version headers match their fingerprint ($current)"
    ;;
esac
