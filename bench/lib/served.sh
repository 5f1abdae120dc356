# shellcheck shell=bash
# Did every keep-alive connection of a wrk run get answers throughout it?
# Sourced by bench/run.sh.
#
# wrk cannot tell: it counts a timeout only when a late response finally
# arrives, so a connection that never gets one produces no error, only fewer
# requests (docs/performance.md, "Starved connections"). The kernel can:
# `ss -i` lists every TCP connection of the server's port with bytes_sent
# (response bytes the server wrote to it; absent while 0) and lastsnd (ms
# since the server last sent it anything). Sampled once per max gap during
# the measured run itself, at any number of connections and without a second
# wrk run, that gives per connection:
#   starved  no byte sent to it by the last sample (or not even connected:
#            fewer established connections than wrk opened)
#   stalled  served, but at some snapshot it had waited about the max gap or
#            more: lastsnd above it, or no byte yet (the first snapshot comes
#            one max gap after wrk started)
# Only connections from 127.0.0.1 are counted: the slow clients of the
# slowloris scenario connect from 127.0.0.2 (lib/slowloris.py).

# served_watch PORT SAMPLES INTERVAL_MS FILE: SAMPLES snapshots of the
# server's established connections, INTERVAL_MS apart, the first after one
# interval; run in the background beside wrk.
served_watch() {
  local port=$1 samples=$2 interval=$3 file=$4 i
  local seconds
  seconds=$(awk -v ms="$interval" 'BEGIN { printf "%.3f", ms / 1000 }')
  : >"$file"
  for ((i = 1; i <= samples; i++)); do
    sleep "$seconds"
    {
      echo "SAMPLE $i"
      # The listener's Recv-Q: connections waiting in its accept queue (they
      # are listed as established below too).
      ss -ltnH "( sport = :$port )" | awk '{ print "QUEUE", $2 }'
      ss -tniH state established "( sport = :$port ) and dst 127.0.0.1"
    } >>"$file" 2>&1
  done
}

# served_summary FILE CONNECTIONS MAX_GAP_MS: one line,
#   SERVED connections=N established=E served=S starved=X stalled=Y
#   worst_gap_ms=G accept_queue_max=Q samples=K
# from the snapshots of served_watch (the last snapshot that saw any
# connection decides served and starved; every snapshot counts for stalled). "established" counts
# connections still in the accept queue too; accept_queue_max is the longest
# that queue was at a snapshot.
served_summary() {
  awk -v want="$2" -v max_gap="$3" '
    /^SAMPLE / { sample = $2; count[sample] = 0; next }
    /^QUEUE / { if ($2 > queue) queue = $2; next }
    /^[^ \t]/ { peer = $4; count[sample]++; next }
    {
      sent = match($0, /bytes_sent:[0-9]+/) ? substr($0, RSTART + 11, RLENGTH - 11) + 0 : 0
      idle = match($0, /lastsnd:[0-9]+/) ? substr($0, RSTART + 8, RLENGTH - 8) + 0 : 0
      if (sent > 0) {
        if (idle > worst) worst = idle
        if (idle > max_gap) stalled[peer] = 1
      } else {
        stalled[peer] = 1
      }
      last_sent[sample, peer] = sent
      peers[sample, peer] = 1
    }
    END {
      if (sample == "") { print "SERVED connections=" want " established=0 served=0 starved=" want \
        " stalled=0 worst_gap_ms=0 accept_queue_max=0 samples=0"; exit }
      # A snapshot taken after wrk closed its connections sees none: the
      # last snapshot that saw any decides.
      decide = sample
      while (decide > 1 && count[decide] == 0) decide--
      served = 0; late = 0
      for (key in peers) {
        split(key, part, SUBSEP)
        if (part[1] != decide) continue
        if (last_sent[key] > 0) { served++; if (part[2] in stalled) late++ }
      }
      starved = want - served
      if (starved < 0) starved = 0
      printf "SERVED connections=%d established=%d served=%d starved=%d stalled=%d " \
        "worst_gap_ms=%d accept_queue_max=%d samples=%d\n", want, count[decide], served, starved,
        late, worst, queue, sample
    }' "$1"
}
