#!/usr/bin/env bash
# Throw-away redis-server for tests, on 127.0.0.1 and a free port.
#
#   redis.sh start DIR   start a private server; writes DIR/url
#                        (redis://127.0.0.1:PORT) and keeps its files in DIR/server
#   redis.sh stop DIR    stop it and remove its files
#
# No persistence (no RDB snapshots, no AOF): a test's counters die with it.
# redis-server runs as root without complaint, so CI needs no other user.
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?state directory}
command -v redis-server >/dev/null ||
  { echo "redis.sh: redis-server not found (apt-get install redis-server)" >&2; exit 1; }

stop_server() {
  local pidfile="$dir/server/redis.pid"
  if [ -f "$pidfile" ]; then
    local pid
    pid=$(cat "$pidfile")
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
      done
    fi
  fi
  rm -rf "$dir/server"
  rm -f "$dir/url"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Waits (up to 10 s) until the server on $1 answers PING.
wait_for_ping() {
  for _ in $(seq 1 200); do
    [ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" = PONG ] && return 0
    [ -f "$dir/server/redis.pid" ] && ! kill -0 "$(cat "$dir/server/redis.pid")" 2>/dev/null && return 1
    sleep 0.05
  done
  return 1
}

case "$cmd" in
  start)
    stop_server
    mkdir -p "$dir/server"
    for attempt in $(seq 1 50); do
      port=$(( 20000 + (RANDOM % 20000) ))
      port_in_use "$port" && continue
      rm -f "$dir/server/redis.pid"
      redis-server --bind 127.0.0.1 --port "$port" --daemonize yes \
        --pidfile "$dir/server/redis.pid" --logfile "$dir/server/redis.log" \
        --dir "$dir/server" --save '' --appendonly no >/dev/null 2>&1 || continue
      if wait_for_ping "$port"; then
        echo "redis://127.0.0.1:$port" > "$dir/url"
        echo "redis ready: $(cat "$dir/url")"
        exit 0
      fi
    done
    echo "redis.sh: redis-server did not start; log:" >&2
    cat "$dir/server/redis.log" >&2 || true
    exit 1
    ;;
  stop)
    stop_server
    echo "redis stopped"
    ;;
  *)
    echo "usage: redis.sh start|stop DIR" >&2
    exit 2
    ;;
esac
