// When the attempts of a delivery happen (decisions §8): the operator's
// `webhooks.retry_schedule`, seconds before each attempt, the first counted
// from the event ("0,60,300,1800,7200,21600": at once, then 1 min, 5 min,
// 30 min, 2 h, 6 h after the previous failure; 6 attempts, then failed).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace rapport::webhooks {

class RetrySchedule {
 public:
  // Throws std::invalid_argument naming the key for an empty list, a
  // non-integer, a negative number or more than 20 items.
  static RetrySchedule fromList(const std::vector<std::string>& items);

  // Delay before the first attempt.
  std::chrono::seconds first() const { return delays_.front(); }
  // Delay before the next attempt after `attemptsMade` attempts failed;
  // nullopt when none is left (the delivery is then failed).
  std::optional<std::chrono::seconds> after(int attemptsMade) const;
  int maxAttempts() const { return static_cast<int>(delays_.size()); }

 private:
  std::vector<std::chrono::seconds> delays_;
};

}  // namespace rapport::webhooks
