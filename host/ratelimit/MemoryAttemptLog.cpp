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

// Inserts `at` in order (threads read the clock before taking the lock, so a
// time may arrive slightly out of order), then forgets what the window and
// `keep` no longer hold.
void MemoryAttemptLog::add(Entry& entry, std::int64_t at, std::int64_t keep, std::int64_t window) {
  entry.times.insert(std::upper_bound(entry.times.begin(), entry.times.end(), at), at);
  forgetOld(entry.times, at, keep, window);
  entry.forgetAt = std::max(entry.forgetAt, entry.times.back() + window);
}

AttemptWindow MemoryAttemptLog::record(const std::string& key, std::int64_t atMicros,
                                       std::int64_t keep, std::int64_t windowMicros) {
  const std::int64_t window = atLeastOne(windowMicros);
  auto& shard = entries_.shardFor(key);
  std::lock_guard lock(shard.mutex);
  entries_.purgeIfFull(shard, [atMicros](const Entry& old) { return old.forgetAt <= atMicros; });
  Entry& entry = shard.entries[key];
  add(entry, atMicros, atLeastOne(keep), window);
  return summarize(entry.times);
}

AttemptAdmission MemoryAttemptLog::tryRecord(const std::string& key, std::int64_t atMicros,
                                             std::int64_t limit, std::int64_t windowMicros) {
  const std::int64_t window = atLeastOne(windowMicros);
  const std::int64_t keep = atLeastOne(limit);
  auto& shard = entries_.shardFor(key);
  std::lock_guard lock(shard.mutex);
  entries_.purgeIfFull(shard, [atMicros](const Entry& old) { return old.forgetAt <= atMicros; });
  Entry& entry = shard.entries[key];
  forgetOld(entry.times, atMicros, keep, window);
  if (static_cast<std::int64_t>(entry.times.size()) >= keep) {
    return {false, summarize(entry.times)};
  }
  add(entry, atMicros, keep, window);
  return {true, summarize(entry.times)};
}

void MemoryAttemptLog::release(const std::string& key, std::int64_t atMicros) {
  auto& shard = entries_.shardFor(key);
  std::lock_guard lock(shard.mutex);
  auto it = shard.entries.find(key);
  if (it == shard.entries.end()) return;
  auto& times = it->second.times;
  const auto at = std::lower_bound(times.begin(), times.end(), atMicros);
  if (at == times.end() || *at != atMicros) return;
  times.erase(at);
  // forgetAt may now be later than needed: the entry is dropped a little
  // late, never early.
  if (times.empty()) shard.entries.erase(it);
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
