#!/usr/bin/env bash
# sdk.abi_fingerprint_script: sdk/abi/fingerprint.sh on a copy of the headers.
# A comment-only or layout-only edit keeps the fingerprint; a changed
# declaration fails the check with the message that says what to do;
# --record refuses to change a recorded version and appends a new one.
set -euo pipefail
script=${1:?usage: fingerprint_test.sh <sdk/abi/fingerprint.sh> <sdk/include>}
source_include=${2:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$source_include" "$work/include"
book=$work/fingerprints
echo "# test fingerprints" >"$book"
fp() { "$script" --include "$work/include" --fingerprints "$book" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
version=$(fp --print | cut -d' ' -f1)
h=$work/include/rapport/module.h
abi=$work/include/rapport/abi.h

# Nothing recorded yet: the check fails and says how to record.
out=$(fp 2>&1) && fail "check passed with nothing recorded"
grep -q "no fingerprint recorded for SDK ABI $version" <<<"$out" || fail "no-record message: $out"
grep -q -- "--record" <<<"$out" || fail "no-record message lacks --record: $out"

# Record, then the check passes; recording again the same is a no-op.
fp --record >/dev/null || fail "first --record refused"
[ "$(grep -c "^$version " "$book")" = 1 ] || fail "not recorded once: $(cat "$book")"
fp >/dev/null || fail "check fails right after --record"
fp --record >/dev/null || fail "recording the same fingerprint again failed"
[ "$(grep -c "^$version " "$book")" = 1 ] || fail "recorded twice"

# Comments, indentation and line wrapping do not count.
printf '\n// A new comment line.\n/* and a block\n   comment */\n' >>"$h"
sed -i 's|^  virtual void start() {}|  virtual void start() {}  // trailing comment|' "$h"
sed -i 's|^  virtual void stop() {}|    virtual void\n        stop() {}|' "$h"
grep -q "trailing comment" "$h" || fail "the test's comment edit did not apply"
fp >/dev/null || fail "a comment-only change failed the check: $(fp 2>&1)"

# A "//" inside a string literal is code, not a comment.
before=$(fp --print)
sed -i 's|#define RAPPORT_STAMP_SECTION ".rapport_stamp"|#define RAPPORT_STAMP_SECTION ".rapport_stamp//x"|' "$abi"
grep -q 'rapport_stamp//x' "$abi" || fail "the string edit did not apply"
[ "$(fp --print)" != "$before" ] || fail "an edit inside a string literal was ignored"
sed -i 's|".rapport_stamp//x"|".rapport_stamp"|' "$abi"
[ "$(fp --print)" = "$before" ] || fail "restoring the string did not restore the fingerprint"

# A changed declaration fails the check, with what to do (stop() was
# re-wrapped above: a new virtual goes before it).
sed -i 's|^    virtual void$|  virtual void pause() {}\n    virtual void|' "$h"
grep -q "pause" "$h" || fail "the test's declaration edit did not apply"
out=$(fp 2>&1) && fail "a changed declaration passed the check"
grep -q "the public SDK headers changed but abi.h still says $version" <<<"$out" ||
  fail "change message: $out"
grep -q "Bump RAPPORT_SDK_ABI_MINOR (a compatible change) or RAPPORT_SDK_ABI_MAJOR" <<<"$out" ||
  fail "change message lacks the bump: $out"
grep -q "fingerprint.sh --record" <<<"$out" || fail "change message lacks --record: $out"

# --record refuses to change the recorded line, and leaves the file alone.
saved=$(cat "$book")
out=$(fp --record 2>&1) && fail "--record changed an existing version"
grep -q "refusing to change the fingerprint recorded for SDK ABI $version" <<<"$out" ||
  fail "refusal message: $out"
[ "$(cat "$book")" = "$saved" ] || fail "the refused --record changed the file"

# A new header counts too.
echo "struct Extra {};" >"$work/include/rapport/extra.h"
fp >/dev/null 2>&1 && fail "a new header passed the check"

# Bumping the minor version and recording it: both lines stay, the check passes.
major=${version%.*}
minor=${version#*.}
sed -i "s/^#define RAPPORT_SDK_ABI_MINOR $minor\$/#define RAPPORT_SDK_ABI_MINOR $((minor + 1))/" "$abi"
next="$major.$((minor + 1))"
[ "$(fp --print | cut -d' ' -f1)" = "$next" ] || fail "the bump did not apply"
fp --record >/dev/null || fail "recording $next refused"
grep -q "^$version " "$book" || fail "the $version line was lost"
grep -q "^$next " "$book" || fail "the $next line is missing"
fp >/dev/null || fail "check fails after recording $next"
echo "fingerprint script: all cases passed"
