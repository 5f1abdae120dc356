# shellcheck shell=bash
# The HTTPS receiver of bench/webhooks.sh: a private nginx that answers every
# request `204 No Content` over TLS, with keep-alive connections it never
# closes during a run, and a certificate for localhost and 127.0.0.1 issued
# by a throw-away CA made with openssl in the run's work folder. rapportd
# trusts that CA through webhooks.ca_file. Sourced after servers.sh (log,
# die, free_port, stop_process, STARTED_PIDS; WORK and LOGS set by the
# caller); stopped by stop_all like every other server.

# receiver_ca DIR: a CA (ca.crt, ca.key) and a server certificate signed by
# it (server.crt, server.key) in DIR, valid two days. ECDSA P-256: the
# cheapest handshake for both sides. The server certificate names
# DNS:localhost and IP:127.0.0.1 (subjectAltName) and is for serverAuth only.
receiver_ca() {
  local dir=$1
  mkdir -p "$dir"
  (
    set -e
    cd "$dir"
    openssl ecparam -name prime256v1 -genkey -noout -out ca.key
    openssl req -x509 -new -sha256 -key ca.key -days 2 -subj "/CN=Rapport bench throw-away CA" \
      -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign" -out ca.crt
    openssl ecparam -name prime256v1 -genkey -noout -out server.key
    openssl req -new -sha256 -key server.key -subj "/CN=localhost" -out server.csr
    printf '%s\n' "basicConstraints=critical,CA:FALSE" \
      "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" \
      "subjectAltName=DNS:localhost,IP:127.0.0.1" >server.ext
    openssl x509 -req -sha256 -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
      -days 2 -extfile server.ext -out server.crt
    openssl verify -CAfile ca.crt server.crt
  ) >"$LOGS/receiver-ca.log" 2>&1 || die "openssl could not make the receiver's CA; see $LOGS/receiver-ca.log"
}

# start_receiver NAME: the CA and certificates (receiver_ca), then nginx on a
# free port of 127.0.0.1 with TLS, `return 204` for every path and method.
# Sets RECEIVER_URL (https://RECEIVER_HOST:PORT; RECEIVER_HOST is localhost
# unless the caller set 127.0.0.1, both named by the certificate; the port is
# bound on 127.0.0.1, which localhost names in /etc/hosts) and RECEIVER_CA
# (the CA file for webhooks.ca_file and curl --cacert).
#
# One worker process: answering 204 costs nginx little next to rapportd's
# work (the run records the CPU each used), and the two cores are shared by
# rapportd, the database, wrk and the receiver. keepalive_requests is raised
# so a delivery worker's connection is never closed by the receiver
# mid-run; the TLS session cache lets a reopened connection resume.
start_receiver() {
  local name=$1 prefix="$WORK/$1" port attempt
  mkdir -p "$prefix/logs" "$prefix/tmp"
  receiver_ca "$prefix/tls"
  RECEIVER_CA="$prefix/tls/ca.crt"
  for attempt in 1 2 3; do
    port=$(free_port)
    {
      echo "# Written by bench/webhooks.sh for one run; deleted afterwards."
      if [ "$(id -u)" = 0 ]; then echo "user root;"; fi
      cat <<EOF
worker_processes 1;
daemon off;
pid $prefix/nginx.pid;
error_log $prefix/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_timeout 65;
  keepalive_requests 100000000;
  client_max_body_size 1m;
  client_body_buffer_size 64k;
  client_body_temp_path $prefix/tmp/body;
  proxy_temp_path $prefix/tmp/proxy;
  fastcgi_temp_path $prefix/tmp/fastcgi;
  uwsgi_temp_path $prefix/tmp/uwsgi;
  scgi_temp_path $prefix/tmp/scgi;
  ssl_protocols TLSv1.2 TLSv1.3;
  ssl_session_cache shared:bench:1m;
  server {
    listen 127.0.0.1:$port ssl;
    ssl_certificate $prefix/tls/server.crt;
    ssl_certificate_key $prefix/tls/server.key;
    location / { return 204; }
  }
}
EOF
    } >"$prefix/nginx.conf"
    nginx -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/logs/error.log" \
      >"$LOGS/$name.log" 2>&1 &
    STARTED_PIDS["$name"]=$!
    RECEIVER_URL="https://${RECEIVER_HOST:-localhost}:$port"
    # A POST over TLS verified against the run's CA, the way rapportd connects.
    if wait_http "$name" "$RECEIVER_URL/ready" 10 --cacert "$RECEIVER_CA" -X POST --data-binary '{}'; then
      log "$name listening on $RECEIVER_URL (pid ${STARTED_PIDS[$name]}, TLS, return 204)"
      return 0
    fi
    stop_process "$name"
    log "$name did not start on port $port (attempt $attempt); error log:"
    tail -n 5 "$prefix/logs/error.log" >&2 2>/dev/null || true
  done
  die "the HTTPS receiver did not start; see $prefix/logs/error.log"
}
