// The circuit breaker of the delivery targets (docs/modules/webhooks.md,
// "Fairness"): a webhook whose attempts time out again and again stops being
// attempted for a while, so a receiver that hangs does not hold the delivery
// workers for every delivery of its backlog.
//
// Per webhook, in this instance's memory (each instance learns on its own):
// - closed: attempts go; `timeoutsToOpen` consecutive attempts that ran out
//   of time (any answer, or a fast failure, resets the count) open it;
// - open for `openFor`: the worker defers the webhook's deliveries not
//   attempted yet to the end of that time (next_attempt_at moves; no
//   attempt is counted, nothing fails); deliveries already in their retry
//   schedule keep it (the contract's 6 attempts) and act as its probes;
// - then half-open: attempts go again; the first that times out opens it for
//   another `openFor`, the first that does not closes it.
//
// Thread-safe: the delivery workers and the request threads share one.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace rapport::webhooks {

class TargetCircuits {
 public:
  // Webhooks with a count of time-outs kept at most (the oldest closed ones go first).
  static constexpr std::size_t kMaxTracked = 10000;

  TargetCircuits(int timeoutsToOpen, std::chrono::seconds openFor)
      : timeoutsToOpen_(timeoutsToOpen), openFor_(openFor) {}

  // When the circuit of `webhookId` half-opens (microseconds since the
  // epoch), while it is open at `now`; nullopt when attempts may go.
  std::optional<std::int64_t> openUntil(const std::string& webhookId, std::int64_t now) const;

  // Counts an attempt's outcome at `now`; returns the end of the open time
  // when this outcome opened the circuit, nullopt otherwise.
  std::optional<std::int64_t> record(const std::string& webhookId, bool timedOut, std::int64_t now);

 private:
  struct State {
    int timeouts = 0;            // consecutive
    std::int64_t openUntil = 0;  // 0: never opened in this streak
  };

  int timeoutsToOpen_;
  std::chrono::seconds openFor_;
  mutable std::mutex mutex_;
  std::map<std::string, State> states_;
};

}  // namespace rapport::webhooks
