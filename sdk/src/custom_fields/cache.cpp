// The definitions of a record type per company, cached for reads (the
// record's JSON, the list's query): custom_fields.h says how fresh.
#include "internal.h"

namespace rapport::custom_fields {
namespace {

// Beyond this many companies the cache starts over: a process serving more
// companies at once reloads, it does not grow without bound.
constexpr std::size_t kMaxEntries = 10000;

}  // namespace

Cache::Cache(std::string recordType, Build build, std::chrono::milliseconds ttl)
    : recordType_(std::move(recordType)), build_(std::move(build)), ttl_(ttl) {}

std::shared_ptr<const Snapshot> Cache::get(Queryable& db, const std::string& companyId) {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(companyId);
    if (it != entries_.end() && now - it->second.loaded < ttl_) return it->second.snapshot;
  }
  // Read outside the lock: a slow database never stalls another company.
  auto snapshot =
      std::make_shared<const Snapshot>(build_(readDefinitions(db, companyId, recordType_)));
  std::lock_guard lock(mutex_);
  if (entries_.size() >= kMaxEntries) entries_.clear();
  entries_[companyId] = {snapshot, now};
  return snapshot;
}

void Cache::forget(const std::string& companyId) {
  std::lock_guard lock(mutex_);
  entries_.erase(companyId);
}

}  // namespace rapport::custom_fields
