#include "accounts/TokenCache.h"

#include <algorithm>
#include <functional>

namespace rapport::host::accounts {

TokenCache::TokenCache(std::size_t capacity)
    : perShardCapacity_(std::max<std::size_t>(1, capacity / kShards)) {}

TokenCache::Shard& TokenCache::shardFor(const std::string& tokenHash) {
  return shards_[std::hash<std::string>{}(tokenHash) % kShards];
}

const TokenCache::Shard& TokenCache::shardFor(const std::string& tokenHash) const {
  return shards_[std::hash<std::string>{}(tokenHash) % kShards];
}

TokenCache::Lookup TokenCache::find(const std::string& tokenHash) const {
  const Shard& shard = shardFor(tokenHash);
  std::lock_guard lock(shard.mutex);
  Lookup out;
  out.epoch = shard.epoch;
  if (auto it = shard.entries.find(tokenHash); it != shard.entries.end()) out.entry = it->second;
  return out;
}

void TokenCache::storeIfUnchanged(const std::string& tokenHash, const CachedToken& entry,
                                  std::uint64_t epoch) {
  Shard& shard = shardFor(tokenHash);
  std::lock_guard lock(shard.mutex);
  if (shard.epoch != epoch) return;
  auto it = shard.entries.find(tokenHash);
  if (it != shard.entries.end()) {
    it->second = entry;
    return;
  }
  if (shard.entries.size() >= perShardCapacity_) shard.entries.erase(shard.entries.begin());
  shard.entries.emplace(tokenHash, entry);
}

void TokenCache::erase(const std::string& tokenHash) {
  Shard& shard = shardFor(tokenHash);
  std::lock_guard lock(shard.mutex);
  shard.entries.erase(tokenHash);
  ++shard.epoch;
}

void TokenCache::shorten(const std::string& tokenHash, std::int64_t expiresAt) {
  Shard& shard = shardFor(tokenHash);
  std::lock_guard lock(shard.mutex);
  if (auto it = shard.entries.find(tokenHash); it != shard.entries.end()) {
    it->second.expiresAt = std::min(it->second.expiresAt, expiresAt);
  }
  ++shard.epoch;
}

void TokenCache::eraseUser(const std::string& userId) {
  for (Shard& shard : shards_) {
    std::lock_guard lock(shard.mutex);
    std::erase_if(shard.entries,
                  [&](const auto& item) { return item.second.identity.userId == userId; });
    ++shard.epoch;
  }
}

std::size_t TokenCache::size() const {
  std::size_t total = 0;
  for (const Shard& shard : shards_) {
    std::lock_guard lock(shard.mutex);
    total += shard.entries.size();
  }
  return total;
}

}  // namespace rapport::host::accounts
