// The clock accounts reads: microseconds since the Unix epoch (UTC), the unit
// of every stored timestamp. Injected so tests can move time (token expiry,
// cache staleness, refresh grace, login windows) without sleeping.
#pragma once

#include <cstdint>
#include <functional>

#include "rapport/time.h"

namespace rapport::host::accounts {

using Clock = std::function<std::int64_t()>;

inline Clock systemClock() {
  return [] { return rapport::nowMicros(); };
}

inline constexpr std::int64_t kMicrosPerSecond = 1'000'000;

}  // namespace rapport::host::accounts
