// Fixed-window counters (decisions §9), behind an interface so several
// rapportd instances can share one store later; the embedded default keeps
// them in memory (MemoryRateLimitStore).
#pragma once

#include <cstdint>
#include <string>

namespace rapport::host {

struct RateDecision {
  bool allowed = true;
  std::int64_t limit = 0;
  std::int64_t remaining = 0;  // never negative
  std::int64_t resetAt = 0;    // Unix seconds when the window ends
  // Whole seconds until resetAt, at least 1 (meaningful when !allowed).
  std::int64_t retryAfter = 0;
};

class RateLimitStore {
 public:
  virtual ~RateLimitStore() = default;
  // Counts one hit for `key` in the window of `windowSeconds` that contains
  // `nowSeconds` (windows start at multiples of windowSeconds since the
  // epoch) and tells whether the count is within `limit`. A shared store
  // that cannot count throws (std::exception); the caller decides
  // (ratelimit.on_store_error, StoreErrorPolicy.h).
  virtual RateDecision hit(const std::string& key, std::int64_t limit, std::int64_t windowSeconds,
                           std::int64_t nowSeconds) = 0;
  // The same decision without counting.
  virtual RateDecision peek(const std::string& key, std::int64_t limit, std::int64_t windowSeconds,
                            std::int64_t nowSeconds) = 0;
};

}  // namespace rapport::host
