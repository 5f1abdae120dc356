// `webhooks.retry_schedule` parsed and applied (RetrySchedule.h).
#include "delivery/RetrySchedule.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace rapport::webhooks {

namespace {

constexpr std::size_t kMaxItems = 20;
// One year: a larger delay is a typo, and the bound keeps the arithmetic of
// the callers (seconds to microseconds) far from overflowing.
constexpr long long kMaxDelaySeconds = 365LL * 24 * 3600;

const std::string kKey = "webhooks.retry_schedule";

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

}  // namespace

RetrySchedule RetrySchedule::fromList(const std::vector<std::string>& items) {
  if (items.empty()) throw std::invalid_argument(kKey + " must list at least one delay in seconds");
  if (items.size() > kMaxItems)
    throw std::invalid_argument(kKey + " must list at most 20 delays (got " +
                                std::to_string(items.size()) + ")");
  RetrySchedule schedule;
  for (const std::string& raw : items) {
    const std::string item = trim(raw);
    std::string digits = item;
    const bool negative = !digits.empty() && digits.front() == '-';
    if (negative || (!digits.empty() && digits.front() == '+')) digits.erase(0, 1);
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
      throw std::invalid_argument(kKey + ": \"" + item + "\" is not an integer number of seconds");
    const long long value = std::stoll(digits);
    if (negative && value != 0)
      throw std::invalid_argument(kKey + ": \"" + item + "\" is negative");
    if (value > kMaxDelaySeconds)
      throw std::invalid_argument(kKey + ": \"" + item + "\" is more than " +
                                  std::to_string(kMaxDelaySeconds) + " seconds (one year)");
    schedule.delays_.emplace_back(value);
  }
  return schedule;
}

std::optional<std::chrono::seconds> RetrySchedule::after(int attemptsMade) const {
  if (attemptsMade < 0) return delays_.front();
  if (static_cast<std::size_t>(attemptsMade) >= delays_.size()) return std::nullopt;
  return delays_[static_cast<std::size_t>(attemptsMade)];
}

}  // namespace rapport::webhooks
