#!/usr/bin/env bash
# Throw-away PostgreSQL for tests, on 127.0.0.1 and a free port.
#
#   pg.sh start DIR   initialise and start a cluster; writes DIR/url
#                     (postgresql://rapport@127.0.0.1:PORT/postgres) and DIR/datadir
#   pg.sh stop DIR    stop it and remove its files
#
# initdb refuses root, so as root the cluster runs as the "postgres" user in a
# folder that user owns (stack-facts.md). fsync is off: this is for tests only.
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?state directory}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$pgbin" ] || { echo "pg.sh: PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

stop_cluster() {
  if [ -f "$dir/datadir" ]; then
    data=$(cat "$dir/datadir")
    if [ -d "$data" ]; then
      as_owner "$pgbin/pg_ctl" -D "$data/cluster" -m immediate stop >/dev/null 2>&1 || true
      rm -rf "$data"
    fi
    rm -f "$dir/datadir" "$dir/url"
  fi
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# PG_DURABLE=1 (environment): fsync, synchronous_commit and full page writes
# on, as a production cluster (bench/run.sh BENCH_PG_DURABLE=1).
durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
[ "${PG_DURABLE:-0}" = 1 ] && durability="-c shared_buffers=512MB"
# PG_OPTIONS (environment): more server options, e.g. "-c
# shared_preload_libraries=pg_stat_statements" to profile a benchmark's statements.
durability="$durability ${PG_OPTIONS:-}"

case "$cmd" in
  start)
    stop_cluster
    mkdir -p "$dir"
    data=$(mktemp -d /tmp/rapport-pg.XXXXXX)
    chmod 755 "$data"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$data"
    echo "$data" > "$dir/datadir"
    as_owner "$pgbin/initdb" -D "$data/cluster" -U rapport --auth=trust -E UTF8 --locale=C.UTF-8 \
      >"$data/initdb.log" 2>&1 || { cat "$data/initdb.log" >&2; exit 1; }
    for attempt in $(seq 1 50); do
      port=$(( 20000 + (RANDOM % 20000) ))
      port_in_use "$port" && continue
      if as_owner "$pgbin/pg_ctl" -D "$data/cluster" -l "$data/server.log" -w -t 30 start \
          -o "-p $port -k $data -c listen_addresses=127.0.0.1 $durability -c max_connections=400 -c timezone=UTC" \
          >/dev/null 2>&1; then
        echo "postgresql://rapport@127.0.0.1:$port/postgres" > "$dir/url"
        echo "PostgreSQL ready: $(cat "$dir/url")"
        exit 0
      fi
    done
    echo "pg.sh: PostgreSQL did not start; log:" >&2
    cat "$data/server.log" >&2 || true
    exit 1
    ;;
  stop)
    stop_cluster
    echo "PostgreSQL stopped"
    ;;
  *)
    echo "usage: pg.sh start|stop DIR" >&2
    exit 2
    ;;
esac
