# shellcheck shell=bash
# The slowloris scenario's slow clients (lib/slowloris.py) beside a wrk run.
# Sourced by bench/run.sh after lib/servers.sh (STARTED_PIDS, stop_process).

# slowloris_start PORT CONNECTIONS INTERVAL FILE: starts the slow clients and
# waits (at most 30 s) until each has sent its first bytes. Non-zero when
# they did not get there.
slowloris_start() {
  local port=$1 connections=$2 interval=$3 file=$4
  python3 "$BENCH_DIR/lib/slowloris.py" --port "$port" --connections "$connections" \
    --interval "$interval" >"$file" 2>&1 &
  STARTED_PIDS["slowloris"]=$!
  local deadline=$((SECONDS + 30))
  while ((SECONDS < deadline)); do
    grep -q '^SLOWLORIS ready' "$file" && return 0
    kill -0 "${STARTED_PIDS["slowloris"]}" 2>/dev/null || return 1
    sleep 0.2
  done
  return 1
}

# slowloris_stop FILE: stops them and prints their summary line (without
# "SLOWLORIS "), or "not started".
slowloris_stop() {
  stop_process slowloris
  sed -n 's/^SLOWLORIS \(connections=.*opened=.*\)/\1/p' "$1" | tail -n 1 | grep . || echo "not started"
}
