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

void TokenCache::eraseEntry(Shard& shard,
                            std::unordered_map<std::string, CachedToken>::iterator it) {
  shard.hashById.erase(it->second.identity.tokenId);
  shard.entries.erase(it);
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
    // A hash names one token row, so the id does not change.
    it->second = entry;
    return;
  }
  if (shard.entries.size() >= perShardCapacity_) eraseEntry(shard, shard.entries.begin());
  shard.entries.emplace(tokenHash, entry);
  shard.hashById[entry.identity.tokenId] = tokenHash;
}

void TokenCache::erase(const std::string& tokenHash) {
  Shard& shard = shardFor(tokenHash);
  std::lock_guard lock(shard.mutex);
  if (auto it = shard.entries.find(tokenHash); it != shard.entries.end()) eraseEntry(shard, it);
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
    for (auto it = shard.entries.begin(); it != shard.entries.end();) {
      if (it->second.identity.userId == userId) {
        shard.hashById.erase(it->second.identity.tokenId);
        it = shard.entries.erase(it);
      } else {
        ++it;
      }
    }
    ++shard.epoch;
  }
}

void TokenCache::eraseToken(const std::string& tokenId) {
  for (Shard& shard : shards_) {
    std::lock_guard lock(shard.mutex);
    if (auto id = shard.hashById.find(tokenId); id != shard.hashById.end()) {
      shard.entries.erase(id->second);
      shard.hashById.erase(id);
    }
    ++shard.epoch;
  }
}

void TokenCache::clear() {
  for (Shard& shard : shards_) {
    std::lock_guard lock(shard.mutex);
    shard.entries.clear();
    shard.hashById.clear();
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
