// Runs the modules' background jobs (rapport::Job), one thread each: first
// run shortly after start(), then every interval. stop() sets the stopping
// flag, wakes every job that is waiting and joins the threads; a job that is
// running finishes its current pass (it should poll JobContext::stopping).
// A job that throws is logged and runs again at its next interval.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "rapport/jobs.h"

namespace rapport::host {

class JobRunner {
 public:
  JobRunner() = default;
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;
  ~JobRunner() { stop(); }

  // Only before start().
  void add(Job job);
  void start();
  void stop();
  // Drops the job functions (before module libraries are released).
  void clear();
  std::size_t size() const { return jobs_.size(); }

 private:
  void loop(const Job& job);

  std::vector<Job> jobs_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
};

}  // namespace rapport::host
