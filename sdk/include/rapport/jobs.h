// Background jobs: periodic work owned by a module (the webhooks module's
// delivery workers, clean-ups). The host runs each job on its own thread,
// first shortly after start-up and then every `interval`; on shutdown it sets
// `stopping`, wakes the job and waits for it to return.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

namespace rapport {

struct JobContext {
  const std::atomic<bool>& stopping;  // poll in long loops; return soon when true
};

using JobFunction = std::function<void(const JobContext&)>;

struct Job {
  std::string name;  // for logs: "<module>.<job>"
  std::chrono::milliseconds interval{1000};
  JobFunction run;
};

}  // namespace rapport
