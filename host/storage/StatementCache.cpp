#include "storage/StatementCache.h"

namespace rapport::host {

PreparedStatement* StatementCache::find(const std::string& key) {
  const auto found = index_.find(key);
  if (found == index_.end()) return nullptr;
  order_.splice(order_.begin(), order_, found->second);
  return found->second->statement.get();
}

std::unique_ptr<PreparedStatement> StatementCache::insert(
    const std::string& key, std::unique_ptr<PreparedStatement> statement) {
  std::unique_ptr<PreparedStatement> evicted;
  if (index_.size() >= capacity_ && !order_.empty()) {
    evicted = std::move(order_.back().statement);
    index_.erase(order_.back().key);
    order_.pop_back();
  }
  order_.push_front(Entry{key, std::move(statement)});
  index_[key] = order_.begin();
  return evicted;
}

std::unique_ptr<PreparedStatement> StatementCache::remove(const std::string& key) {
  const auto found = index_.find(key);
  if (found == index_.end()) return nullptr;
  std::unique_ptr<PreparedStatement> statement = std::move(found->second->statement);
  order_.erase(found->second);
  index_.erase(found);
  return statement;
}

void StatementCache::clear() {
  index_.clear();
  order_.clear();
}

}  // namespace rapport::host
