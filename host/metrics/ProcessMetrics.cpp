#include "metrics/ProcessMetrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace rapport::host::metrics {
namespace {

std::string readFile(const char* path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Boot time in unix seconds (the btime line of /proc/stat).
std::optional<double> bootTime() {
  std::istringstream in(readFile("/proc/stat"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("btime ", 0) == 0) return std::stod(line.substr(6));
  }
  return std::nullopt;
}

// Entries of /proc/self/fd, without "." and "..", and without the
// descriptor the listing itself holds open.
std::optional<long> openFileDescriptors() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return std::nullopt;
  long count = 0;
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  ::closedir(dir);
  return count - 1;
}

void gauge(TextWriter& out, std::string_view name, std::string_view help, double value) {
  out.family(name, help, Type::Gauge);
  out.sample(name, {}, value);
}

}  // namespace

std::optional<ProcStat> parseProcStat(std::string_view stat, long ticksPerSecond, long pageSize) {
  // The command name (field 2) is in parentheses and may hold spaces or
  // parentheses itself: fields are counted from the last ')'.
  const auto close = stat.rfind(')');
  if (close == std::string_view::npos || ticksPerSecond <= 0) return std::nullopt;
  std::vector<std::string_view> fields;  // fields[0] is field 3 (state)
  std::size_t pos = close + 1;
  while (pos < stat.size()) {
    while (pos < stat.size() && stat[pos] == ' ') ++pos;
    const std::size_t end = std::min(stat.find(' ', pos), stat.size());
    if (end > pos) fields.push_back(stat.substr(pos, end - pos));
    pos = end;
  }
  const auto number = [&](std::size_t field) -> std::optional<double> {
    if (field - 3 >= fields.size()) return std::nullopt;
    std::string_view text = fields[field - 3];
    while (!text.empty() && (text.back() == '\n')) text.remove_suffix(1);
    unsigned long long value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return static_cast<double>(value);
  };
  const auto utime = number(14), stime = number(15), start = number(22), vsize = number(23),
             rss = number(24);
  if (!utime || !stime || !start || !vsize || !rss) return std::nullopt;
  const double ticks = static_cast<double>(ticksPerSecond);
  return ProcStat{(*utime + *stime) / ticks, *start / ticks, *vsize,
                  *rss * static_cast<double>(pageSize)};
}

void writeProcessMetrics(TextWriter& out) {
  const auto stat =
      parseProcStat(readFile("/proc/self/stat"), ::sysconf(_SC_CLK_TCK), ::sysconf(_SC_PAGESIZE));
  if (stat) {
    out.family("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
               Type::Counter);
    out.sample("process_cpu_seconds_total", {}, stat->cpuSeconds);
    gauge(out, "process_resident_memory_bytes", "Resident memory size in bytes.",
          stat->residentBytes);
    gauge(out, "process_virtual_memory_bytes", "Virtual memory size in bytes.", stat->virtualBytes);
    if (const auto boot = bootTime()) {
      gauge(out, "process_start_time_seconds",
            "Start time of the process since unix epoch in seconds.", *boot + stat->startSeconds);
    }
  }
  if (const auto fds = openFileDescriptors()) {
    gauge(out, "process_open_fds", "Number of open file descriptors.", static_cast<double>(*fds));
  }
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    gauge(out, "process_max_fds", "Maximum number of open file descriptors.",
          static_cast<double>(limit.rlim_cur));
  }
}

}  // namespace rapport::host::metrics
