// The embedded rate-limit store (decisions §9): fixed-window counters kept in
// this process's memory. Right for one rapportd instance; several instances
// need a shared RateLimitStore instead.
//
// Threading: hit() and peek() may be called from any number of threads. Keys
// are spread over independent shards, each with its own mutex, so unrelated
// clients rarely wait for each other.
//
// Memory: an entry lives until its window has ended; ended entries are
// dropped when their shard grows past a threshold, so the map holds roughly
// the keys active in the current window.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ratelimit/RateLimitStore.h"
#include "ratelimit/ShardedMap.h"

namespace rapport::host {

class MemoryRateLimitStore final : public RateLimitStore {
 public:
  // `purgeThreshold`: a shard looks for ended windows once it holds this many
  // keys (and then again at twice what survived).
  explicit MemoryRateLimitStore(std::size_t purgeThreshold = 1024);

  RateDecision hit(const std::string& key, std::int64_t limit, std::int64_t windowSeconds,
                   std::int64_t nowSeconds) override;
  // `allowed` tells whether a hit now would be allowed (count < limit).
  RateDecision peek(const std::string& key, std::int64_t limit, std::int64_t windowSeconds,
                    std::int64_t nowSeconds) override;

  // Keys currently held, over all shards (for tests and diagnostics).
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::int64_t windowStart = 0;
    std::int64_t windowEnd = 0;
    std::int64_t count = 0;
  };

  ShardedMap<Entry> entries_;
};

}  // namespace rapport::host
