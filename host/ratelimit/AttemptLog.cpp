#include "ratelimit/AttemptLog.h"

#include <algorithm>

namespace rapport::host {

std::int64_t AttemptWindow::retryAfterSeconds(std::int64_t nowMicros,
                                              std::int64_t windowMicros) const {
  constexpr std::int64_t kMicrosPerSecond = 1'000'000;
  const std::int64_t left = oldestAt + windowMicros - nowMicros;
  // Rounded up: a client that waits the whole seconds it was told is let in.
  const std::int64_t seconds = (left + kMicrosPerSecond - 1) / kMicrosPerSecond;
  return std::max<std::int64_t>(1, seconds);
}

}  // namespace rapport::host
