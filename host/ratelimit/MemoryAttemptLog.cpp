#include "ratelimit/MemoryAttemptLog.h"

#include <algorithm>

namespace rapport::host {
namespace {

// Non-positive limits are misconfigurations that validation should have
// caught; the least surprising reading is "one".
std::int64_t atLeastOne(std::int64_t value) {
  return std::max<std::int64_t>(1, value);
}

// Forgets the times that left the window ending at `now` (a time counts while
// now - time < window) and all but the newest `keep`.
void forgetOld(std::vector<std::int64_t>& times, std::int64_t now, std::int64_t keep,
               std::int64_t window) {
  times.erase(times.begin(), std::upper_bound(times.begin(), times.end(), now - window));
  const auto excess = static_cast<std::int64_t>(times.size()) - keep;
  if (excess > 0) times.erase(times.begin(), times.begin() + excess);
}

AttemptWindow summarize(const std::vector<std::int64_t>& times) {
  if (times.empty()) return {};
  return {static_cast<std::int64_t>(times.size()), times.front()};
}

}  // namespace

MemoryAttemptLog::MemoryAttemptLog(std::size_t purgeThreshold) : entries_(purgeThreshold) {}

AttemptWindow MemoryAttemptLog::record(const std::string& key, std::int64_t atMicros,
                                       std::int64_t keep, std::int64_t windowMicros) {
  const std::int64_t window = atLeastOne(windowMicros);
  auto& shard = entries_.shardFor(key);
  std::lock_guard lock(shard.mutex);
  entries_.purgeIfFull(shard, [atMicros](const Entry& old) { return old.forgetAt <= atMicros; });
  Entry& entry = shard.entries[key];
  // Threads read the clock before taking the lock, so a time may arrive
  // slightly out of order: insert it in place to keep the list sorted.
  entry.times.insert(std::upper_bound(entry.times.begin(), entry.times.end(), atMicros), atMicros);
  forgetOld(entry.times, atMicros, atLeastOne(keep), window);
  entry.forgetAt = std::max(entry.forgetAt, entry.times.back() + window);
  return summarize(entry.times);
}

AttemptWindow MemoryAttemptLog::recent(const std::string& key, std::int64_t nowMicros,
                                       std::int64_t keep, std::int64_t windowMicros) {
  auto& shard = entries_.shardFor(key);
  std::lock_guard lock(shard.mutex);
  auto it = shard.entries.find(key);
  if (it == shard.entries.end()) return {};
  forgetOld(it->second.times, nowMicros, atLeastOne(keep), atLeastOne(windowMicros));
  if (it->second.times.empty()) {
    shard.entries.erase(it);
    return {};
  }
  return summarize(it->second.times);
}

}  // namespace rapport::host
