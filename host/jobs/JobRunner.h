// Runs the modules' background jobs (rapport::Job, jobs.h): `concurrency`
// threads per job, each running the job, then waiting its interval or a wake
// (JobHandle), until stop(). A run that throws is logged with the job's name
// and runs again after the interval. stop() tells every job to stop, wakes
// the waiting threads and joins them; a run in progress finishes its pass
// (JobContext::stopping() and wait() tell it to hurry).
#pragma once

#include <memory>
#include <thread>
#include <vector>

#include "jobs/JobSignal.h"
#include "rapport/jobs.h"

namespace rapport::host {

class JobRunner {
 public:
  JobRunner() = default;
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;
  ~JobRunner() { stop(); }

  // Only before start(). Throws std::invalid_argument for a job without a
  // function or with concurrency 0.
  JobHandle add(Job job);
  void start();
  void stop();
  // Drops the job functions (before module libraries are released); the
  // handles modules hold stay valid and do nothing.
  void clear();
  std::size_t size() const { return jobs_.size(); }

 private:
  struct Entry {
    Job job;
    std::shared_ptr<JobSignal> signal;
  };
  static void loop(const Entry& entry, unsigned worker);

  std::vector<Entry> jobs_;
  std::vector<std::thread> threads_;
};

}  // namespace rapport::host
