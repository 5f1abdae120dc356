# shellcheck shell=bash
# Versions of what a benchmark ran, for the results files of bench/run.sh and
# bench/webhooks.sh. Needs ROOT (the repository).

pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "not installed"; }

rapport_version() {
  local rev
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) || rev="no commit yet"
  # --no-optional-locks: a read-only status that does not refresh the index.
  if [ -n "$(git -C "$ROOT" --no-optional-locks status --porcelain 2>/dev/null | head -c 1)" ]; then
    rev+=" (uncommitted changes)"
  fi
  echo "$rev"
}

postgres_version() {
  local bin
  bin=$(find /usr/lib/postgresql -maxdepth 3 -name postgres -path '*/bin/*' 2>/dev/null | sort -V | tail -n 1)
  if [ -n "$bin" ]; then "$bin" --version | sed 's/^postgres (PostgreSQL) //'; else echo "not installed"; fi
}
