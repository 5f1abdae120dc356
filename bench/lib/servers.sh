# shellcheck shell=bash
# Servers for bench/run.sh: a private nginx, rapportd and a throw-away
# PostgreSQL, each started in the background and stopped by stop_all (called
# from run.sh's EXIT trap). Sourced by run.sh, which sets: WORK (temporary
# folder), LOGS (kept log folder), ROOT (repository), RAPPORTD (binary).
#
# Everything listens on 127.0.0.1 only.

# name -> pid of every server process this run started and has not stopped yet.
declare -A STARTED_PIDS=()
PG_STATE=""  # pg.sh state folder while a PostgreSQL runs

log() { printf '[bench %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# A free loopback port. Another process may take it before we bind it, so
# callers retry with a fresh port when their server fails to start.
free_port() {
  local port
  for _ in $(seq 1 100); do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  die "no free port found on 127.0.0.1"
}

# wait_http NAME URL SECONDS [CURL_ARGS...]: until URL answers 2xx, or NAME's
# process exits, or SECONDS pass. Returns non-zero when the server never
# became ready. CURL_ARGS go to curl (a method, a body, --cacert ...).
wait_http() {
  local name=$1 url=$2 seconds=$3 pid=${STARTED_PIDS[$1]}
  shift 3
  local deadline=$((SECONDS + seconds))
  while ((SECONDS < deadline)); do
    kill -0 "$pid" 2>/dev/null || return 1
    curl -fsS -o /dev/null --max-time 2 "$@" "$url" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}

# stop_process NAME: SIGTERM (both nginx and rapportd shut down cleanly on
# it), then SIGKILL after 10 s so a hung server cannot outlive the run.
stop_process() {
  local name=$1 pid=${STARTED_PIDS[$1]:-}
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "$name (pid $pid) ignored SIGTERM for 10 s: killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
  unset "STARTED_PIDS[$name]"
}

# --- nginx: the "return 200" ceiling ----------------------------------------

# start_nginx NAME: a private nginx (its own prefix, configuration, pid file
# and logs under $WORK; the system service is never touched) on a free port.
# Sets NGINX_URL.
#
# worker_processes auto (one worker per core, 2 here): rapportd may use every
# core, so the ceiling may too. keepalive_requests is raised so that nginx,
# like rapportd, never closes a busy keep-alive connection during a run.
start_nginx() {
  local name=$1 prefix="$WORK/$1" port attempt
  mkdir -p "$prefix/logs" "$prefix/tmp"
  for attempt in 1 2 3; do
    port=$(free_port)
    {
      echo "# Written by bench/run.sh for one run; deleted afterwards."
      # As root, workers would run as "nobody"; keep them root like the
      # master. Not root: nginx runs everything as the current user anyway.
      if [ "$(id -u)" = 0 ]; then echo "user root;"; fi
      cat <<EOF
worker_processes auto;
daemon off;
pid $prefix/nginx.pid;
error_log $prefix/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_timeout 65;
  keepalive_requests 100000000;
  # Debian's nginx writes its temporary files under /var/lib/nginx by default.
  client_body_temp_path $prefix/tmp/body;
  proxy_temp_path $prefix/tmp/proxy;
  fastcgi_temp_path $prefix/tmp/fastcgi;
  uwsgi_temp_path $prefix/tmp/uwsgi;
  scgi_temp_path $prefix/tmp/scgi;
  server {
    listen 127.0.0.1:$port;
    location / { return 200 "ok"; }
  }
}
EOF
    } >"$prefix/nginx.conf"
    # -e: the error log before the configuration is read (the default,
    # /var/log/nginx/error.log, may not be writable).
    nginx -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/logs/error.log" \
      >"$LOGS/$name.log" 2>&1 &
    STARTED_PIDS[$name]=$!
    NGINX_URL="http://127.0.0.1:$port/"
    if wait_http "$name" "$NGINX_URL" 10; then
      log "$name listening on $NGINX_URL (pid ${STARTED_PIDS[$name]}, worker_processes auto)"
      return 0
    fi
    stop_process "$name"
    log "$name did not start on port $port (attempt $attempt); error log:"
    tail -n 5 "$prefix/logs/error.log" >&2 2>/dev/null || true
  done
  die "nginx did not start; see $prefix/logs/error.log"
}

# --- PostgreSQL ---------------------------------------------------------------

# start_postgresql: a throw-away cluster through .ci/lib/pg.sh (free port,
# 127.0.0.1, fsync off) and an empty database for rapportd. Sets DB_URL.
start_postgresql() {
  PG_STATE="$WORK/pg"
  PG_DURABLE=${BENCH_PG_DURABLE:-0} "$ROOT/.ci/lib/pg.sh" start "$PG_STATE" >"$LOGS/postgresql.log" 2>&1 ||
    die "PostgreSQL did not start; see $LOGS/postgresql.log"
  local admin_url
  admin_url=$(cat "$PG_STATE/url")
  psql "$admin_url" -v ON_ERROR_STOP=1 -qc "CREATE DATABASE rapport_bench" \
    >>"$LOGS/postgresql.log" 2>&1 || die "CREATE DATABASE failed; see $LOGS/postgresql.log"
  DB_URL="${admin_url%/*}/rapport_bench"
  # BENCH_PG_SOCKET=1: rapportd (and the seeding) reach the cluster through
  # its Unix socket, as a PostgreSQL on the same machine is best reached,
  # instead of TCP on 127.0.0.1 (libpq's host= option, passed through by
  # database.url's query string).
  if [ "${BENCH_PG_SOCKET:-0}" = 1 ]; then DB_URL="$DB_URL?host=$(cat "$PG_STATE/datadir")"; fi
  log "PostgreSQL ready: $DB_URL"
}

stop_postgresql() {
  [ -n "$PG_STATE" ] || return 0
  "$ROOT/.ci/lib/pg.sh" stop "$PG_STATE" >>"$LOGS/postgresql.log" 2>&1 || true
  PG_STATE=""
}

# --- rapportd -----------------------------------------------------------------

# start_rapportd NAME DATABASE_URL: rapportd on a free port. Sets RAPPORT_URL
# (http://127.0.0.1:PORT). The configuration file is written to the log folder,
# with RAPPORTD_EXTRA_CONFIG (when set) at its end.
#
# The port is chosen here rather than with server.port = 0: rapportd logs its
# port at info level, and the benchmark runs it at warn level because info
# writes one line per request, which would measure the logger.
start_rapportd() {
  local name=$1 db_url=$2 dir="$WORK/$1" port attempt
  mkdir -p "$dir"
  # RAPPORT_* variables override the configuration file (README.md): drop
  # any from the caller's environment so the run measures what it says.
  local -a clean_env=()
  local var
  for var in $(compgen -e); do
    [[ $var == RAPPORT_* ]] && clean_env+=(-u "$var")
  done
  for attempt in 1 2 3; do
    port=$(free_port)
    cat >"$LOGS/$name.properties" <<EOF
# Written by bench/run.sh.
server.host = 127.0.0.1
server.port = $port
# Workers running complete requests; connections cost none (issue 10).
server.threads = $SERVER_THREADS
database.url = $db_url
# Every worker may hold a session at once.
database.pool_size = $SERVER_THREADS
# The benchmark's single token would otherwise be limited to 60 requests/min.
ratelimit.requests = 1000000000
log.level = warn
mail.outbox = $dir/outbox
EOF
    # The caller's extra keys (bench/webhooks.sh: webhooks.*), "key = value"
    # a line; none for run.sh.
    [ -z "${RAPPORTD_EXTRA_CONFIG:-}" ] ||
      printf '%s\n' "$RAPPORTD_EXTRA_CONFIG" >>"$LOGS/$name.properties"
    # The working folder is the temporary one, so no config/rapport.properties
    # or data/ of the checkout is picked up or written.
    # A lib/ beside the binary first (a copied build, run.sh --rapportd):
    # its SDK library, not the one in the build folder it was linked in.
    local libs
    libs="$(dirname "$RAPPORTD")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    (cd "$dir" && exec env "${clean_env[@]}" LD_LIBRARY_PATH="$libs" "$RAPPORTD" \
      --config "$LOGS/$name.properties") \
      >"$LOGS/$name.log" 2>&1 &
    STARTED_PIDS[$name]=$!
    RAPPORT_URL="http://127.0.0.1:$port"
    # 60 s: start-up applies the migrations, slower on PostgreSQL on a busy machine.
    if wait_http "$name" "$RAPPORT_URL/readyz" 60; then
      log "$name listening on $RAPPORT_URL (pid ${STARTED_PIDS[$name]}, server.threads $SERVER_THREADS)"
      return 0
    fi
    stop_process "$name"
    log "$name did not start on port $port (attempt $attempt); log:"
    tail -n 5 "$LOGS/$name.log" >&2 || true
  done
  die "rapportd did not start; see $LOGS/$name.log"
}

# stop_all: every server still running, PostgreSQL last (rapportd uses it).
stop_all() {
  local name
  for name in "${!STARTED_PIDS[@]}"; do
    stop_process "$name"
  done
  stop_postgresql
}

# The run's scratch folder ($WORK), removed with every server the run started
# when the script ends (exit, Ctrl-C, TERM): no server outlives the run.
# BENCH_KEEP=1 (environment) keeps the folder (databases included, servers
# stopped) for a look at the seeded data afterwards.
bench_workdir() {
  WORK=$(mktemp -d /tmp/rapport-bench.XXXXXX)
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

bench_cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stop_all
  if [[ ${BENCH_KEEP:-0} == 1 ]]; then
    echo "[bench] kept $WORK (BENCH_KEEP=1)" >&2
  else
    rm -rf "$WORK"
  fi
  exit "$status"
}
