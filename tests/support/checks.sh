# shellcheck shell=bash
# The checks of the shell tests (tests/e2e/sdk/install_test.sh,
# tests/package/deb_test.sh): source it after setting $work (a folder for the
# last command's output); it counts in $passed and $failed.
passed=0 failed=0
check() {  # check NAME COMMAND...: runs COMMAND, counts the outcome
  local name=$1
  shift
  if "$@" >"$work/last.log" 2>&1; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name"; sed 's/^/     /' "$work/last.log" | tail -30
  fi
}
