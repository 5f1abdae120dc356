#include "accounts/LoginThrottle.h"

#include <utility>

#include "rapport/error.h"

namespace rapport::host::accounts {

LoginThrottle::LoginThrottle(AttemptLog& log, std::int64_t maxAttempts, std::int64_t windowSeconds,
                             Clock clock)
    : log_(log),
      maxAttempts_(maxAttempts),
      windowMicros_(windowSeconds * kMicrosPerSecond),
      clock_(std::move(clock)) {}

std::string LoginThrottle::key(const std::string& emailLower, const std::string& clientAddress) {
  return "login:" + emailLower + ":" + clientAddress;
}

void LoginThrottle::check(const std::string& emailLower, const std::string& clientAddress) {
  const std::int64_t now = clock_();
  const AttemptWindow recent =
      log_.recent(key(emailLower, clientAddress), now, maxAttempts_, windowMicros_);
  if (recent.count < maxAttempts_) return;
  throw rapport::Error::tooManyRequests(recent.retryAfterSeconds(now, windowMicros_),
                                        "Too many login attempts. Please try again later.");
}

void LoginThrottle::recordFailure(const std::string& emailLower, const std::string& clientAddress) {
  log_.record(key(emailLower, clientAddress), clock_(), maxAttempts_, windowMicros_);
}

}  // namespace rapport::host::accounts
