// The targets' circuit breaker (TargetCircuit.h).
#include "delivery/TargetCircuit.h"

namespace rapport::webhooks {

std::optional<std::int64_t> TargetCircuits::openUntil(const std::string& webhookId,
                                                      std::int64_t now) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = states_.find(webhookId);
  if (it == states_.end() || it->second.openUntil <= now) return std::nullopt;
  return it->second.openUntil;
}

std::optional<std::int64_t> TargetCircuits::record(const std::string& webhookId, bool timedOut,
                                                   std::int64_t now) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!timedOut) {
    states_.erase(webhookId);  // closed
    return std::nullopt;
  }
  auto it = states_.find(webhookId);
  if (it == states_.end()) {
    if (states_.size() >= kMaxTracked) {
      // Full: forget a webhook that is not open (a count that had not
      // opened anything yet); when every one is open, this one is not counted.
      auto closed = states_.begin();
      while (closed != states_.end() && closed->second.openUntil > now) ++closed;
      if (closed == states_.end()) return std::nullopt;
      states_.erase(closed);
    }
    it = states_.emplace(webhookId, State{}).first;
  }
  State& state = it->second;
  if (state.openUntil > now) return std::nullopt;  // an attempt that began before it opened
  ++state.timeouts;
  // Closed and reaching the threshold, or half-open (opened before): open.
  if (state.timeouts < timeoutsToOpen_ && state.openUntil == 0) return std::nullopt;
  state.openUntil = now + static_cast<std::int64_t>(openFor_.count()) * 1000000;
  return state.openUntil;
}

}  // namespace rapport::webhooks
