// Per-key entries of the in-memory stores (MemoryRateLimitStore,
// MemoryAttemptLog): keys spread over independent shards, each with its own
// mutex, so unrelated clients rarely wait for each other, and dead entries
// dropped when a shard grows past a threshold.
//
// Threading: lock a shard's mutex around any use of its entries; size()
// locks each shard itself.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace rapport::host {

template <typename Entry>
class ShardedMap {
 public:
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<std::string, Entry> entries;
    std::size_t purgeAt = 0;
  };

  // `purgeThreshold`: a shard looks for dead entries once it holds this many
  // (and then again at twice what survived).
  explicit ShardedMap(std::size_t purgeThreshold)
      : purgeThreshold_(std::max<std::size_t>(1, purgeThreshold)) {
    for (auto& shard : shards_) shard.purgeAt = purgeThreshold_;
  }

  Shard& shardFor(std::string_view key) {
    return shards_[std::hash<std::string_view>{}(key) % kShards];
  }

  // Call with the shard locked, before adding to it: once it holds purgeAt
  // entries, drops those `dead` accepts. Doubling the next threshold keeps
  // the cost amortised when most keys are live (a burst of distinct clients).
  template <typename Dead>
  void purgeIfFull(Shard& shard, Dead dead) const {
    if (shard.entries.size() < shard.purgeAt) return;
    std::erase_if(shard.entries, [&dead](const auto& item) { return dead(item.second); });
    shard.purgeAt = std::max(purgeThreshold_, shard.entries.size() * 2);
  }

  // Keys currently held, over all shards (for tests and diagnostics).
  std::size_t size() const {
    std::size_t total = 0;
    for (const auto& shard : shards_) {
      std::lock_guard lock(shard.mutex);
      total += shard.entries.size();
    }
    return total;
  }

 private:
  static constexpr std::size_t kShards = 16;
  std::size_t purgeThreshold_;
  std::array<Shard, kShards> shards_;
};

}  // namespace rapport::host
