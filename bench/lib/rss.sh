# shellcheck shell=bash
# The memory rapportd holds during a measurement (issue 10: RSS at 1,000
# connections). Sourced by bench/run.sh.
#
# VmRSS (resident now) is sampled from /proc/<pid>/status every half second
# while wrk runs; VmHWM is the kernel's own peak of VmRSS since the process
# started, read at the end (it covers every earlier run of the same rapportd
# too, which is why the sampled peak is reported beside it).

# rss_watch PID FILE: "VmRSS VmHWM" (KiB) every 0.5 s while PID lives; run in
# the background, stopped with stop_process.
rss_watch() {
  local pid=$1 file=$2 key value rss hwm
  : >"$file"
  while [ -r "/proc/$pid/status" ]; do
    rss="" hwm=""
    while read -r key value _; do
      case $key in
        VmRSS:) rss=$value ;;
        VmHWM:) hwm=$value ;;
      esac
    done <"/proc/$pid/status" 2>/dev/null || break
    [ -z "$rss" ] || echo "$rss $hwm" >>"$file"
    sleep 0.5
  done
}

# rss_summary FILE: "<peak sampled VmRSS MiB> <last VmHWM MiB>", or "- -"
# without samples.
rss_summary() {
  awk '$1 > peak { peak = $1 } { hwm = $2 }
    END { if (NR) printf "%.0f %.0f\n", peak / 1024, hwm / 1024; else print "- -" }' "$1"
}
