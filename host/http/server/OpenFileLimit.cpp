#include "http/server/OpenFileLimit.h"

#include <sys/resource.h>

namespace rapport::host {
namespace {

// Database connections, the listener, log and outbox files, module
// libraries, the webhook and mail clients' sockets.
constexpr std::size_t kReservedDescriptors = 256;

}  // namespace

std::size_t raiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? static_cast<std::size_t>(1) << 20
                                         : static_cast<std::size_t>(limit.rlim_cur);
}

std::size_t connectionsWithin(std::size_t openFileLimit) {
  return openFileLimit > 2 * kReservedDescriptors ? openFileLimit - kReservedDescriptors
                                                  : openFileLimit / 2;
}

}  // namespace rapport::host
