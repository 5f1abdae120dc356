// The process-wide trigram counts (trigram_counts.h).
#include "trigram_counts.h"

#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "rapport/search.h"

namespace rapport::detail {
namespace {

using Clock = std::chrono::steady_clock;

// How long a count is trusted. Rarity drifts slowly (a trigram one record in
// a thousand holds stays rare as the table grows); ten minutes bounds the
// statements to one per trigram searched per index and interval.
constexpr auto kFresh = std::chrono::minutes(10);
// Past this many cached counts the cache starts again (a process searched
// with that many distinct trigrams has no working set to keep).
constexpr std::size_t kMaxCounts = 200000;

struct Count {
  std::int64_t value = 0;
  Clock::time_point at;
};

class Cache {
 public:
  bool find(const std::string& key, Clock::time_point now, std::int64_t& value) const {
    std::shared_lock lock(mutex_);
    const auto it = counts_.find(key);
    if (it == counts_.end() || now - it->second.at > kFresh) return false;
    value = it->second.value;
    return true;
  }

  void store(const std::string& key, std::int64_t value, Clock::time_point now) {
    std::unique_lock lock(mutex_);
    if (counts_.size() >= kMaxCounts) counts_.clear();
    counts_[key] = Count{value, now};
  }

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, Count> counts_;
};

Cache& cache() {
  static Cache instance;
  return instance;
}

// One trigram's matches, at most kTrigramCountCap of them, read through the
// index the search itself uses.
std::int64_t countMatches(Queryable& db, std::string_view table, std::string_view ftsTable,
                          const std::string& trigram) {
  const std::string cap = std::to_string(kTrigramCountCap);
  if (db.dialect() == Dialect::SQLite) {
    const std::string fts(ftsTable);
    return db
        .query("SELECT COUNT(*) AS n FROM (SELECT 1 FROM " + fts + " WHERE " + fts +
                   " MATCH ? LIMIT " + cap + ")",
               {ftsPhrase(trigram)})
        .front()
        .i64("n");
  }
  return db
      .query("SELECT COUNT(*) AS n FROM (SELECT 1 FROM " + std::string(table) +
                 " WHERE search_text LIKE ? ESCAPE '\\' LIMIT " + cap + ") AS matches",
             {likeContains(trigram)})
      .front()
      .i64("n");
}

}  // namespace

std::vector<std::int64_t> trigramCounts(Queryable& db, std::string_view table,
                                        std::string_view ftsTable,
                                        const std::vector<std::string>& trigrams) {
  const std::string index = std::string(db.dialect() == Dialect::SQLite ? ftsTable : table) + '\n';
  std::vector<std::int64_t> counts;
  counts.reserve(trigrams.size());
  const Clock::time_point now = Clock::now();
  for (const std::string& trigram : trigrams) {
    const std::string key = index + trigram;
    std::int64_t value = 0;
    if (!cache().find(key, now, value)) {
      value = countMatches(db, table, ftsTable, trigram);
      cache().store(key, value, now);
    }
    counts.push_back(value);
  }
  return counts;
}

}  // namespace rapport::detail
