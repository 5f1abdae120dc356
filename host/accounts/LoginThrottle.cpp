#include "accounts/LoginThrottle.h"

#include <algorithm>
#include <utility>

#include "rapport/error.h"

namespace rapport::host::accounts {

LoginThrottle::LoginThrottle(RateLimitStore& store, std::int64_t maxAttempts,
                             std::int64_t windowSeconds, Clock clock)
    : store_(store),
      maxAttempts_(maxAttempts),
      windowSeconds_(windowSeconds),
      clock_(std::move(clock)) {}

std::string LoginThrottle::key(const std::string& emailLower,
                               const std::string& clientAddress) const {
  return "login:" + emailLower + ":" + clientAddress;
}

std::int64_t LoginThrottle::nowSeconds() const {
  return clock_() / kMicrosPerSecond;
}

void LoginThrottle::check(const std::string& emailLower, const std::string& clientAddress) {
  const std::int64_t now = nowSeconds();
  const RateDecision decision =
      store_.peek(key(emailLower, clientAddress), maxAttempts_, windowSeconds_, now);
  // `remaining` is what is left of the budget of failures: none left means
  // maxAttempts failures were already counted in this window.
  if (decision.allowed && decision.remaining > 0) return;
  // retryAfter is only promised for refused decisions; derive it otherwise.
  const std::int64_t retryAfter =
      decision.retryAfter > 0 ? decision.retryAfter : decision.resetAt - now;
  throw rapport::Error::tooManyRequests(std::max<std::int64_t>(1, retryAfter),
                                        "Too many login attempts. Please try again later.");
}

void LoginThrottle::recordFailure(const std::string& emailLower, const std::string& clientAddress) {
  store_.hit(key(emailLower, clientAddress), maxAttempts_, windowSeconds_, nowSeconds());
}

}  // namespace rapport::host::accounts
