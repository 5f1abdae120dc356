// Login throttling (decisions §3): after `maxAttempts` failed logins for one
// (lower-cased e-mail, client address) within a window, further attempts
// answer 429 with Retry-After until the window ends.
//
// Why per e-mail AND address: per e-mail alone would let anyone lock a
// victim out; per address alone would punish shared NATs. Only failures
// count, and a blocked attempt never reaches the password check, so a
// blocked attacker learns nothing and burns no hashing time.
//
// Threading: thread-safe when the store is (every RateLimitStore is).
#pragma once

#include <cstdint>
#include <string>

#include "accounts/Clock.h"
#include "ratelimit/RateLimitStore.h"

namespace rapport::host::accounts {

class LoginThrottle {
 public:
  // `store` must outlive the throttle.
  LoginThrottle(RateLimitStore& store, std::int64_t maxAttempts, std::int64_t windowSeconds,
                Clock clock = systemClock());

  // Throws rapport::Error 429 (with Retry-After) when the pair is blocked.
  // Counts nothing.
  void check(const std::string& emailLower, const std::string& clientAddress);

  // Counts one failed attempt.
  void recordFailure(const std::string& emailLower, const std::string& clientAddress);

 private:
  std::string key(const std::string& emailLower, const std::string& clientAddress) const;
  std::int64_t nowSeconds() const;

  RateLimitStore& store_;
  std::int64_t maxAttempts_;
  std::int64_t windowSeconds_;
  Clock clock_;
};

}  // namespace rapport::host::accounts
