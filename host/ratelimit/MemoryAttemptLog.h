// The embedded attempt log: the recent attempt times of each key, kept in
// this process's memory. Right for one rapportd instance; several instances
// need a shared AttemptLog instead.
//
// Threading: every operation may be called from any number of threads, and
// each is atomic per key (tryRecord decides and records under one lock).
// Keys are spread over independent shards (ShardedMap).
//
// Memory: a key holds at most `keep` times and is dropped once its newest
// attempt has left the window (checked when its shard grows past a
// threshold, ShardedMap::purgeIfFull).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ratelimit/AttemptLog.h"
#include "ratelimit/ShardedMap.h"

namespace rapport::host {

class MemoryAttemptLog final : public AttemptLog {
 public:
  // `purgeThreshold`: a shard looks for forgotten keys once it holds this
  // many (and then again at twice what survived).
  explicit MemoryAttemptLog(std::size_t purgeThreshold = 1024);

  AttemptWindow record(const std::string& key, std::int64_t atMicros, std::int64_t keep,
                       std::int64_t windowMicros) override;
  AttemptWindow recent(const std::string& key, std::int64_t nowMicros, std::int64_t keep,
                       std::int64_t windowMicros) override;
  AttemptAdmission tryRecord(const std::string& key, std::int64_t atMicros, std::int64_t limit,
                             std::int64_t windowMicros) override;
  void release(const std::string& key, std::int64_t atMicros) override;

  // Keys currently held, over all shards (for tests and diagnostics).
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::vector<std::int64_t> times;  // ascending, at most `keep`
    std::int64_t forgetAt = 0;        // micros when the newest time leaves its window
  };

  static void add(Entry& entry, std::int64_t at, std::int64_t keep, std::int64_t window);

  ShardedMap<Entry> entries_;
};

}  // namespace rapport::host
