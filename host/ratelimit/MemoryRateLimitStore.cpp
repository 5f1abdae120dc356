#include "ratelimit/MemoryRateLimitStore.h"

#include <algorithm>

namespace rapport::host {
namespace {

// Start of the fixed window containing `now`: windows begin at multiples of
// `window` since the epoch, so every instance and restart agrees on them.
std::int64_t windowStartFor(std::int64_t now, std::int64_t window) {
  std::int64_t start = now - now % window;
  if (now < 0 && now % window != 0) start -= window;  // floor, not truncation
  return start;
}

// A zero or negative window would divide by zero; one second is the least
// surprising reading of a misconfiguration that validation should have caught.
std::int64_t sanitizeWindow(std::int64_t windowSeconds) {
  return std::max<std::int64_t>(1, windowSeconds);
}

RateDecision decide(std::int64_t count, bool allowed, std::int64_t limit, std::int64_t resetAt,
                    std::int64_t now) {
  RateDecision decision;
  decision.allowed = allowed;
  decision.limit = limit;
  decision.remaining = std::max<std::int64_t>(0, limit - count);
  decision.resetAt = resetAt;
  decision.retryAfter = std::max<std::int64_t>(1, resetAt - now);
  return decision;
}

}  // namespace

MemoryRateLimitStore::MemoryRateLimitStore(std::size_t purgeThreshold) : entries_(purgeThreshold) {}

RateDecision MemoryRateLimitStore::hit(const std::string& key, std::int64_t limit,
                                       std::int64_t windowSeconds, std::int64_t nowSeconds) {
  const std::int64_t window = sanitizeWindow(windowSeconds);
  const std::int64_t start = windowStartFor(nowSeconds, window);
  auto& shard = entries_.shardFor(key);
  std::lock_guard lock(shard.mutex);
  entries_.purgeIfFull(shard,
                       [nowSeconds](const Entry& old) { return old.windowEnd <= nowSeconds; });
  Entry& entry = shard.entries[key];
  // A different window start (or window length) means a new window: the
  // counter resets, as the API's "fixed window" promises.
  if (entry.windowStart != start || entry.windowEnd != start + window) {
    entry = Entry{start, start + window, 0};
  }
  ++entry.count;
  return decide(entry.count, entry.count <= limit, limit, entry.windowEnd, nowSeconds);
}

RateDecision MemoryRateLimitStore::peek(const std::string& key, std::int64_t limit,
                                        std::int64_t windowSeconds, std::int64_t nowSeconds) {
  const std::int64_t window = sanitizeWindow(windowSeconds);
  const std::int64_t start = windowStartFor(nowSeconds, window);
  auto& shard = entries_.shardFor(key);
  std::int64_t count = 0;
  {
    std::lock_guard lock(shard.mutex);
    auto it = shard.entries.find(key);
    if (it != shard.entries.end() && it->second.windowStart == start &&
        it->second.windowEnd == start + window) {
      count = it->second.count;
    }
  }
  return decide(count, count < limit, limit, start + window, nowSeconds);
}

}  // namespace rapport::host
