// The standard process metrics every Prometheus client exports, read from
// /proc/self at scrape time: process_resident_memory_bytes,
// process_virtual_memory_bytes, process_cpu_seconds_total,
// process_open_fds, process_max_fds, process_start_time_seconds.
// A figure that cannot be read (no /proc) is left out, not faked.
#pragma once

#include <optional>
#include <string_view>

#include "metrics/TextFormat.h"

namespace rapport::host::metrics {

void writeProcessMetrics(TextWriter& out);

// The parts of /proc/self/stat the metrics use; nullopt when `stat` is not
// in that format. Exposed for the tests.
struct ProcStat {
  double cpuSeconds = 0;     // utime + stime
  double startSeconds = 0;   // since boot
  double virtualBytes = 0;   // vsize
  double residentBytes = 0;  // rss pages * page size
};
std::optional<ProcStat> parseProcStat(std::string_view stat, long ticksPerSecond, long pageSize);

}  // namespace rapport::host::metrics
