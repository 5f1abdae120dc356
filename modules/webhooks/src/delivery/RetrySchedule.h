// When the attempts of a delivery happen (decisions §8): the operator's
// `webhooks.retry_schedule`, seconds before each attempt, the first counted
// from the event ("0,60,300,1800,7200,21600": at once, then 1 min, 5 min,
// 30 min, 2 h, 6 h after the previous failure; 6 attempts, then failed).
//
// A receiver's Retry-After (seconds or an HTTP date) is honoured within the
// schedule: the next attempt comes no sooner than it asks, but never later
// than the schedule's longest step (docs/modules/webhooks.md, "Fairness").
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
  // The longest delay of the schedule.
  std::chrono::seconds longest() const;
  // The delay before the next attempt when the schedule says `scheduled`
  // and the receiver asked for `asked`: max(scheduled, asked), at most longest().
  std::chrono::seconds honour(std::chrono::seconds scheduled, std::chrono::seconds asked) const;

 private:
  std::vector<std::chrono::seconds> delays_;
};

// The delay a Retry-After header value asks for, counted from `now`: a
// number of seconds ("120"), or an HTTP date (IMF-fixdate, RFC 850 or
// asctime; a date in the past asks for 0). nullopt when it is neither.
std::optional<std::chrono::seconds> parseRetryAfter(const std::string& value,
                                                    std::chrono::system_clock::time_point now);

}  // namespace rapport::webhooks
