#include "jobs/JobRunner.h"

#include <exception>

#include "log/Log.h"

namespace rapport::host {

void JobRunner::add(Job job) {
  jobs_.push_back(std::move(job));
}

void JobRunner::start() {
  stopping_ = false;
  for (const auto& job : jobs_) threads_.emplace_back([this, &job] { loop(job); });
}

void JobRunner::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

void JobRunner::clear() {
  jobs_.clear();
}

void JobRunner::loop(const Job& job) {
  JobContext context{stopping_};
  while (!stopping_) {
    try {
      job.run(context);
    } catch (const std::exception& e) {
      log::error("job failed", {{"job", job.name}, {"error", e.what()}});
    } catch (...) {
      log::error("job failed", {{"job", job.name}, {"error", "unknown exception"}});
    }
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, job.interval, [this] { return stopping_.load(); });
  }
}

}  // namespace rapport::host
