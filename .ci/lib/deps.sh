#!/usr/bin/env bash
# Installs the Debian 12 packages Rapport needs that are missing.
#   deps.sh build   compiler, CMake and libraries (enough to build and serve)
#   deps.sh test    build + PostgreSQL server and test tools
#   deps.sh bench   build + wrk, nginx, PostgreSQL and sqlite3 for bench/
# Uses sudo when not root. Installs nothing when everything is present.
set -euo pipefail
set_name=${1:-build}

build=(g++ cmake make pkg-config libpoco-dev libpq-dev libboost-dev libboost-filesystem-dev
       libssl-dev libargon2-dev liboath-dev libcppunit-dev ca-certificates
       python3 python3-zxcvbn)
# python3-zxcvbn: its list of common passwords is embedded at build time.
# openssl: the tests' and the benchmark's throw-away CAs and HMAC checks.
# python3-aiosmtpd: the tests' SMTP server (STARTTLS, AUTH).
# clang, libclang-rt-14-dev: the libFuzzer harnesses of fuzz.smoke (fuzz/).
# prometheus: its promtool checks GET /metrics (e2e.metrics); the server it
# ships is never started (see policy-rc.d below).
# dpkg-dev, file: cpack's DEB generator (dpkg-shlibdeps computes Depends);
# systemd: systemd-analyze verify; adduser: the package's postinst
# (package.deb installs and purges it in CI).
# redis-server, nginx-light: the shared rate-limit store (unit.redis, fixture
# "redis") and several instances behind nginx (e2e.instances); neither
# daemon is started by the install (policy-rc.d below).
test=("${build[@]}" postgresql postgresql-contrib oathtool curl openssl python3-aiosmtpd
      clang libclang-rt-14-dev prometheus dpkg-dev file systemd adduser redis-server nginx-light)
# iproute2: ss, the served-connections check of bench/lib/served.sh.
bench=("${build[@]}" wrk nginx-light postgresql postgresql-contrib curl sqlite3 openssl iproute2)

# node and npm run the tests' OpenID Connect provider (oidc-provider, which
# wants node 20): a machine that has them from elsewhere keeps its own.
command -v node >/dev/null && command -v npm >/dev/null || test+=(nodejs npm)

case "$set_name" in
  build) wanted=("${build[@]}") ;;
  test) wanted=("${test[@]}") ;;
  bench) wanted=("${bench[@]}") ;;
  *) echo "usage: deps.sh build|test|bench" >&2; exit 2 ;;
esac

missing=()
for pkg in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# Packages with a daemon (prometheus, postgresql, redis, nginx) must not start it: the
# tests run their own servers. A policy-rc.d that says 101 ("not allowed")
# keeps invoke-rc.d and deb-systemd-invoke from starting any, for the time
# of the install (a machine that has its own keeps it).
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  $sudo sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod 755 $policy"
  trap '$sudo rm -f "$policy"' EXIT
fi
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
