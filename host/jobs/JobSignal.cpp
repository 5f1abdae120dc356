#include "jobs/JobSignal.h"

namespace rapport::host {

void JobSignal::wake() {
  {
    std::lock_guard lock(mutex_);
    ++wakes_;
  }
  changed_.notify_all();
}

void JobSignal::wakeOne() {
  {
    std::lock_guard lock(mutex_);
    ++tokens_;
  }
  changed_.notify_one();
}

void JobSignal::reset() {
  std::lock_guard lock(mutex_);
  stopping_ = false;
}

void JobSignal::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
}

std::uint64_t JobSignal::wakes() const {
  std::lock_guard lock(mutex_);
  return wakes_;
}

bool JobSignal::waitFor(std::uint64_t& seen, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  bool woken = changed_.wait_for(lock, timeout,
                                 [&] { return stopping_.load() || wakes_ != seen || tokens_ > 0; });
  if (woken && wakes_ == seen && tokens_ > 0 && !stopping_.load()) --tokens_;  // this thread's turn
  seen = wakes_;
  return woken;
}

}  // namespace rapport::host
