// The prepared statements of one session, keyed by SQL text and parameter
// signature, least recently used first out.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

#include "storage/PreparedStatement.h"

namespace rapport::host {

class StatementCache {
 public:
  explicit StatementCache(std::size_t capacity) : capacity_(capacity) {}

  // The statement for `key`, marked most recently used; null when absent.
  PreparedStatement* find(const std::string& key);
  // Stores `statement` and returns the least recently used one when the
  // cache was full (the caller decides when to destroy it).
  std::unique_ptr<PreparedStatement> insert(const std::string& key,
                                            std::unique_ptr<PreparedStatement> statement);
  // Takes the statement out of the cache (after it failed).
  std::unique_ptr<PreparedStatement> remove(const std::string& key);
  std::size_t size() const { return index_.size(); }
  void clear();

 private:
  struct Entry {
    std::string key;
    std::unique_ptr<PreparedStatement> statement;
  };
  using Order = std::list<Entry>;

  std::size_t capacity_;
  Order order_;  // most recently used first
  std::unordered_map<std::string, Order::iterator> index_;
};

}  // namespace rapport::host
