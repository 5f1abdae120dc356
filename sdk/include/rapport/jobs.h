// Background jobs: work owned by a module that runs outside requests (the
// webhooks module's delivery workers, clean-ups).
//
// The host runs each job on `concurrency` threads of its own. Each thread
// calls `run` shortly after start-up, then waits `interval` (or until the job
// is woken) and calls it again, until shutdown. A job that throws is logged
// and runs again after its interval.
//
// Waking: Registry::job returns a JobHandle. handle->wake() makes every
// thread of the job that is waiting run again at once, and a thread that is
// running when the wake arrives runs once more when it finishes, so no wake
// is lost. handle->wakeOne() does that for one thread only: a waiting one if
// any, else the next to finish its run. Typical use, so that new work starts
// at commit and not at the next interval, without waking every worker for
// every commit:
//   tx.afterCommit([handle] { handle->wakeOne(); });
// and a worker that finds more than it can take calls wakeOne() again, so
// the others join only when there is work for them.
// wake() is cheap, safe from any thread and at any time of the module's life:
// before the jobs start, and after they stopped (then it does nothing).
//
// Shutdown order (module.h): the server drains its requests, then the jobs
// stop (stopping() turns true, waits return at once, the threads are joined),
// then the modules' stop() run. A run in progress finishes its pass: long
// loops check stopping() and sleep only through JobContext::wait.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "rapport/export.h"

namespace rapport {

// What one thread of a job sees while it runs (implemented by the host).
class RAPPORT_VISIBLE JobContext {
 public:
  virtual ~JobContext() = default;
  // True once shutdown began: return soon.
  virtual bool stopping() const = 0;
  // Sleeps up to `timeout`, less when the job is woken or stops. Returns
  // true when woken (or stopping), false when the whole timeout passed.
  // A wake that arrived since this thread's last wait counts at once.
  virtual bool wait(std::chrono::milliseconds timeout) = 0;
  // 0 .. concurrency-1: which thread of the job this is (for logs).
  virtual unsigned worker() const = 0;
};

using JobFunction = std::function<void(JobContext&)>;

struct Job {
  std::string name;  // "<job>"; the host logs it as "<module>.<job>"
  std::chrono::milliseconds interval{1000};
  JobFunction run;
  unsigned concurrency = 1;  // threads running `run` side by side (at least 1)
};

// Wakes a job (see above). Implemented by the host.
class RAPPORT_VISIBLE JobWaker {
 public:
  virtual ~JobWaker() = default;
  virtual void wake() = 0;     // every thread of the job
  virtual void wakeOne() = 0;  // one thread of the job
};
using JobHandle = std::shared_ptr<JobWaker>;

}  // namespace rapport
