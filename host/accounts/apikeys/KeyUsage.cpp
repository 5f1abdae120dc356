#include "accounts/apikeys/KeyUsage.h"

#include <functional>

namespace rapport::host::accounts::apikeys {

// A forgotten key (deleted, its entry never dropped here) costs one entry
// until the process ends: keys are few, and a write of one that is gone
// updates no row.
bool KeyUsage::record(const std::string& id, std::int64_t now) {
  Shard& shard = shards_[std::hash<std::string>{}(id) % kShards];
  std::lock_guard lock(shard.mutex);
  auto [it, first] = shard.queuedAt.try_emplace(id, now);
  if (!first) {
    if (now - it->second < every_) return false;
    it->second = now;
  }
  shard.pending.emplace_back(id, now);
  return true;
}

std::vector<std::pair<std::string, std::int64_t>> KeyUsage::take() {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (Shard& shard : shards_) {
    std::lock_guard lock(shard.mutex);
    for (auto& use : shard.pending) out.push_back(std::move(use));
    shard.pending.clear();
  }
  return out;
}

}  // namespace rapport::host::accounts::apikeys
