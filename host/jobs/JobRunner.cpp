#include "jobs/JobRunner.h"

#include <exception>
#include <stdexcept>
#include <string>

#include "log/Log.h"
#include "metrics/Metrics.h"
#include "rapport/time.h"

namespace rapport::host {
namespace {

// What one thread of a job sees.
class ThreadContext final : public rapport::JobContext {
 public:
  ThreadContext(JobSignal& signal, unsigned worker)
      : signal_(signal), worker_(worker), seen_(signal.wakes()) {}

  bool stopping() const override { return signal_.stopping(); }
  bool wait(std::chrono::milliseconds timeout) override {
    return signal_.stopping() || signal_.waitFor(seen_, timeout);
  }
  unsigned worker() const override { return worker_; }

 private:
  JobSignal& signal_;
  unsigned worker_;
  std::uint64_t seen_;
};

}  // namespace

JobHandle JobRunner::add(Job job) {
  if (!job.run) throw std::invalid_argument("job '" + job.name + "' has no function");
  if (job.concurrency < 1) throw std::invalid_argument("job '" + job.name + "' has concurrency 0");
  auto signal = std::make_shared<JobSignal>();
  jobs_.push_back(Entry{std::move(job), signal});
  return signal;
}

void JobRunner::start() {
  for (const auto& entry : jobs_) {
    entry.signal->reset();
    for (unsigned worker = 0; worker < entry.job.concurrency; ++worker) {
      threads_.emplace_back([&entry, worker] { loop(entry, worker); });
    }
  }
}

void JobRunner::stop() {
  for (const auto& entry : jobs_) entry.signal->stop();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

void JobRunner::clear() {
  jobs_.clear();
}

void JobRunner::loop(const Entry& entry, unsigned worker) {
  ThreadContext context(*entry.signal, worker);
  const metrics::JobMetrics counted = metrics::jobMetrics(entry.job.name);
  while (!context.stopping()) {
    bool ok = false;
    try {
      entry.job.run(context);
      ok = true;
    } catch (const std::exception& e) {
      log::error(
          "job failed",
          {{"job", entry.job.name}, {"worker", std::to_string(worker)}, {"error", e.what()}});
    } catch (...) {
      log::error("job failed", {{"job", entry.job.name},
                                {"worker", std::to_string(worker)},
                                {"error", "unknown exception"}});
    }
    (ok ? counted.succeeded : counted.failed).inc();
    counted.lastRun.set(rapport::nowMicros() / 1'000'000);
    context.wait(entry.job.interval);
  }
}

}  // namespace rapport::host
