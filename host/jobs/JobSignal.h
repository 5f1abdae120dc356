// One job's wake-up state, shared by the job's threads and the JobHandle the
// module keeps (so the handle outlives the runner safely: waking a stopped
// job only bumps a counter).
//
// Wakes are counted, not flagged: each thread remembers the count it last
// saw, so a wake that arrives while a thread is running makes that thread
// run again instead of being lost. wakeOne() leaves a token instead, taken
// by exactly one thread: a waiting one, or the next to wait.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "rapport/jobs.h"

namespace rapport::host {

class JobSignal final : public rapport::JobWaker {
 public:
  void wake() override;
  void wakeOne() override;

  // Before the threads start, and when they are told to stop.
  void reset();
  void stop();
  bool stopping() const { return stopping_.load(); }

  // The wake count now (a thread's starting point).
  std::uint64_t wakes() const;
  // Waits until the wake count differs from `seen`, stop() or `timeout`;
  // `seen` becomes the current count. True unless the whole timeout passed.
  bool waitFor(std::uint64_t& seen, std::chrono::milliseconds timeout);

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::uint64_t wakes_ = 0;
  std::uint64_t tokens_ = 0;  // wakeOne()s not yet taken
  std::atomic<bool> stopping_{false};
};

}  // namespace rapport::host
