// Login throttling (decisions §3): once `maxAttempts` failed logins for one
// (lower-cased e-mail, client address) fall within the last `window`
// seconds, further attempts answer 429 with Retry-After until the oldest of
// them leaves the window.
//
// The window slides: it is the `window` seconds before each attempt, not a
// fixed slot of the clock, so failures straddling a minute boundary count
// together (an AttemptLog keeps their times). Retry-After is the exact wait
// until the oldest counted failure expires, rounded up to whole seconds.
//
// Why per e-mail AND address: per e-mail alone would let anyone lock a
// victim out; per address alone would punish shared NATs. Only failures
// count, and a blocked attempt never reaches the password check, so a
// blocked attacker learns nothing and burns no hashing time.
//
// Threading: thread-safe when the log is (every AttemptLog is).
#pragma once

#include <cstdint>
#include <string>

#include "accounts/Clock.h"
#include "ratelimit/AttemptLog.h"

namespace rapport::host::accounts {

class LoginThrottle {
 public:
  // `log` must outlive the throttle.
  LoginThrottle(AttemptLog& log, std::int64_t maxAttempts, std::int64_t windowSeconds,
                Clock clock = systemClock());

  // Throws rapport::Error 429 (with Retry-After) when the pair is blocked.
  // Counts nothing.
  void check(const std::string& emailLower, const std::string& clientAddress);

  // Counts one failed attempt.
  void recordFailure(const std::string& emailLower, const std::string& clientAddress);

 private:
  static std::string key(const std::string& emailLower, const std::string& clientAddress);

  AttemptLog& log_;
  std::int64_t maxAttempts_;
  std::int64_t windowMicros_;
  Clock clock_;
};

}  // namespace rapport::host::accounts
