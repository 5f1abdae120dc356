// The answer /readyz gives, asked of the database at most once a second.
//
// Load balancers probe /readyz every few seconds, but nothing stops anyone
// from probing it in a loop, and each uncached probe costs a database round
// trip (a pooled connection on PostgreSQL). Here the answer, ready or not,
// stands for kReadinessTtl after it was obtained, and one check at a time
// runs: a probe that arrives while one runs gets the previous answer, or,
// before the first answer, waits for it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

namespace rapport::host {

inline constexpr std::chrono::seconds kReadinessTtl{1};

class CachedReadiness {
 public:
  // Injected so that tests move time instead of sleeping.
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // `check` (for example a database ping) runs on worker threads; a check
  // that throws means "not ready". No `check` means always ready.
  explicit CachedReadiness(std::function<bool()> check, Clock clock = {});

  // Thread-safe.
  bool ready();

 private:
  bool fresh(std::chrono::steady_clock::time_point now) const;
  bool runCheck() const;

  const std::function<bool()> check_;
  const Clock clock_;
  std::mutex mutex_;
  std::condition_variable settled_;
  bool answered_ = false;  // whether answer_ and answeredAt_ hold a check's result
  bool answer_ = false;
  std::chrono::steady_clock::time_point answeredAt_;
  bool checking_ = false;
};

}  // namespace rapport::host
