#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan + UBSan) and runs each on a copy
# of its seed corpus, so the seeds in the repository never change.
#
#   fuzz/run.sh [--seconds N] [--runs N] [--build-dir DIR] [target...]
#
# Targets: request_head chunked_body json url filter (default: all). --seconds bounds
# each harness's time (default 60 unless --runs is given), --runs its
# executions. Prints one line per harness from libFuzzer's final stats and
# exits non-zero on any finding (crash, leak, sanitizer report, property
# violation, time-out), naming the reproducer file and the log.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
seconds=""
runs=""
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(request_head chunked_body json url filter)
[ -n "$seconds$runs" ] || seconds=60
for target in "${targets[@]}"; do
  [ -f "$root/fuzz/${target}_fuzzer.cpp" ] || { echo "run.sh: no harness '$target'" >&2; exit 2; }
done

command -v clang++ >/dev/null || { echo "run.sh: clang++ not found (Debian: clang, libclang-rt-14-dev)" >&2; exit 2; }
cmake -S "$root/fuzz" -B "$build" -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

options=(-print_final_stats=1 -timeout=10)
[ -n "$seconds" ] && options+=("-max_total_time=$seconds")
[ -n "$runs" ] && options+=("-runs=$runs")

status=0
for target in "${targets[@]}"; do
  work="$build/work/$target"
  rm -rf "$work"
  mkdir -p "$work/artifacts"
  cp -r "$root/fuzz/corpus/$target" "$work/corpus"
  dict=()
  [ -f "$root/fuzz/dict/$target.dict" ] && dict=("-dict=$root/fuzz/dict/$target.dict")
  log="$work/fuzz.log"
  started=$(date +%s)
  # Leaks are findings too (LeakSanitizer runs at exit and after each input).
  set +e
  "$build/${target}_fuzzer" "${options[@]}" "${dict[@]}" -artifact_prefix="$work/artifacts/" \
    "$work/corpus" >"$log" 2>&1
  code=$?
  set -e
  elapsed=$(($(date +%s) - started))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corpus=$(find "$work/corpus" -type f | wc -l)
  if [ "$code" -eq 72 ] && grep -q 'run interrupted' "$log"; then
    # SIGINT (libFuzzer's exit code 72): stopped by hand, not a finding.
    status=1
    printf '%-13s stopped  %s execs, %s exec/s, %ss, corpus %s files (interrupted)\n' \
      "$target" "${execs:-?}" "${rate:-?}" "$elapsed" "$corpus"
  elif [ "$code" -eq 0 ] && ! grep -q -e 'ERROR: \(Address\|Leak\|Undefined\)Sanitizer' -e 'runtime error:' "$log"; then
    printf '%-13s ok       %s execs, %s exec/s, %ss, corpus %s files\n' \
      "$target" "${execs:-?}" "${rate:-?}" "$elapsed" "$corpus"
  else
    status=1
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    printf '%-13s FINDING  exit %s after %ss, %s execs; reproducer: %s; log: %s\n' \
      "$target" "$code" "$elapsed" "${execs:-?}" "${artifact:-none written}" "$log"
    grep -m5 -e 'property violated' -e 'ERROR:' -e 'runtime error:' "$log" | sed 's/^/    /' || true
  fi
done
exit $status
