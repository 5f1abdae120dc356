# shellcheck shell=bash
# The command line of a benchmark script, shared by bench/run.sh and
# bench/webhooks.sh.

# command_line NAME ARGS...: NAME and ARGS as typed, each argument quoted
# only when needed (for the results file).
command_line() {
  local line=$1 arg
  shift
  for arg in "$@"; do
    if [[ $arg =~ ^[A-Za-z0-9_./:=,+-]+$ ]]; then
      line+=" $arg"
    else
      line+=" '${arg//\'/\'\\\'\'}'"
    fi
  done
  printf '%s\n' "$line"
}

# usage_of SCRIPT: the script's opening comment, from line 3 to `set -euo`.
usage_of() { sed -n '3,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$1"; }
