// `webhooks.retry_schedule` parsed and applied (RetrySchedule.h).
#include "delivery/RetrySchedule.h"

#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeParser.h>

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

std::chrono::seconds RetrySchedule::longest() const {
  return *std::max_element(delays_.begin(), delays_.end());
}

std::chrono::seconds RetrySchedule::honour(std::chrono::seconds scheduled,
                                           std::chrono::seconds asked) const {
  return std::min(std::max(scheduled, asked), longest());
}

std::optional<std::chrono::seconds> parseRetryAfter(const std::string& value,
                                                    std::chrono::system_clock::time_point now) {
  const std::string text = trim(value);
  if (text.empty()) return std::nullopt;
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
    // delta-seconds; anything beyond a year is a year (the schedule caps it anyway).
    if (text.size() > 9) return std::chrono::seconds(kMaxDelaySeconds);
    return std::chrono::seconds(std::min(std::stoll(text), kMaxDelaySeconds));
  }
  // A date has letters and a time of day (Poco's parser is lenient enough
  // to read a date into words that hold neither).
  if (text.find(':') == std::string::npos || std::none_of(text.begin(), text.end(), [](char c) {
        return std::isalpha(static_cast<unsigned char>(c)) != 0;
      }))
    return std::nullopt;
  // Poco's parser reads one form into another's fields without failing: the
  // form is chosen by its shape ("Sun, 06 Nov 1994 08:49:37 GMT",
  // "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994").
  const std::string& format =
      text.find(',') == std::string::npos   ? Poco::DateTimeFormat::ASCTIME_FORMAT
      : text.find('-') != std::string::npos ? Poco::DateTimeFormat::RFC850_FORMAT
                                            : Poco::DateTimeFormat::HTTP_FORMAT;
  Poco::DateTime date;
  int zone = 0;
  if (Poco::DateTimeParser::tryParse(format, text, date, zone)) {
    const long long at = date.timestamp().epochTime() - zone;
    const long long from =
        std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    return std::chrono::seconds(std::clamp(at - from, 0LL, kMaxDelaySeconds));
  }
  return std::nullopt;
}

}  // namespace rapport::webhooks
