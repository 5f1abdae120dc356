#include "http/Readiness.h"

#include <utility>

namespace rapport::host {

CachedReadiness::CachedReadiness(std::function<bool()> check, Clock clock)
    : check_(std::move(check)),
      clock_(clock ? std::move(clock) : Clock([] { return std::chrono::steady_clock::now(); })) {}

bool CachedReadiness::ready() {
  std::unique_lock lock(mutex_);
  if (fresh(clock_())) return answer_;
  if (checking_) {
    // A second check would double the load a flood of probes makes; the
    // last answer is at most a check's duration older than its second.
    if (answered_) return answer_;
    settled_.wait(lock, [this] { return !checking_; });
    return answer_;
  }
  checking_ = true;
  lock.unlock();
  const bool answer = runCheck();
  lock.lock();
  answer_ = answer;
  answeredAt_ = clock_();
  answered_ = true;
  checking_ = false;
  settled_.notify_all();
  return answer;
}

bool CachedReadiness::fresh(std::chrono::steady_clock::time_point now) const {
  return answered_ && now - answeredAt_ < kReadinessTtl;
}

// A check that throws (database gone) is an honest "not ready".
bool CachedReadiness::runCheck() const {
  if (!check_) return true;
  try {
    return check_();
  } catch (...) {
    return false;
  }
}

}  // namespace rapport::host
