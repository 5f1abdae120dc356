// Login throttling (decisions §3, docs/accounts.md "Guessing limits"): three
// rules around every password check (login, and the current password of
// PATCH /user/password), all kept in one AttemptLog.
//
// 1. Per (lower-cased e-mail, client key): once `maxAttempts` failures fall
//    within the last `window` seconds, further attempts answer 429 with
//    Retry-After until the oldest of them leaves the window. The client key
//    is ratelimit/ClientKey.h's (IPv6 per /64). Per e-mail alone would let
//    anyone lock a victim out; per address alone would punish shared NATs.
// 2. Per account (the e-mail alone, from any address): once
//    `accountMaxAttempts` failures fall within `accountWindow` seconds, the
//    account is slowed, never locked: further attempts are admitted at most
//    one per `accountInterval` seconds, whoever sends them (429 with
//    Retry-After, at most the interval, otherwise). Addresses that logged
//    into the account successfully in the last 30 days are exempt, so the
//    owner is not slowed by an attack from elsewhere. A distributed guesser
//    gets `accountMaxAttempts` guesses, then one per interval (with the
//    defaults, 20 then 120 an hour).
// 3. Reserve before verifying: begin() counts the attempt as a failure
//    under both rules BEFORE the password is checked (argon2 takes tens of
//    milliseconds), atomically (AttemptLog::tryRecord), so N workers
//    guessing in parallel see each other and exactly `maxAttempts` get
//    through. Attempt::succeeded() takes the reservation back.
//
// The windows slide: each is the span before the attempt, not a slot of the
// clock. Retry-After is the exact wait, rounded up to whole seconds. A
// refused attempt is not counted and never reaches the password check, so
// it teaches nothing and burns no hashing time. E-mails without an account
// are counted like the others (their 429s must not reveal which exist).
//
// Threading: thread-safe when the log is (every AttemptLog is).
#pragma once

#include <cstdint>
#include <string>

#include "accounts/Clock.h"
#include "ratelimit/AttemptLog.h"

namespace rapport::host::accounts {

struct LoginLimits {
  std::int64_t maxAttempts = 5;          // per e-mail and client key...
  std::int64_t window = 60;              // ...within this many seconds
  std::int64_t accountMaxAttempts = 20;  // per e-mail from anywhere...
  std::int64_t accountWindow = 600;      // ...within this many seconds, then
  std::int64_t accountInterval = 30;     // one attempt per this many seconds
};

class LoginThrottle {
 public:
  // One password check in progress, counted as a failure unless
  // succeeded() is called: a wrong password, and also an error (a busy
  // database, argon2 at capacity) since the server cannot tell what the
  // client learnt. Neither copyable nor movable: keep it in the scope of
  // the check.
  class Attempt {
   public:
    Attempt(const Attempt&) = delete;
    Attempt& operator=(const Attempt&) = delete;
    ~Attempt() = default;

    // The password was right: the reservation is taken back (it does not
    // count as a failure) and the client key becomes known to the account.
    void succeeded();

   private:
    friend class LoginThrottle;
    Attempt(LoginThrottle& throttle, std::string emailLower, std::string client, std::int64_t at,
            bool accountReserved);

    LoginThrottle& throttle_;
    std::string emailLower_;
    std::string client_;  // the client key
    std::int64_t at_;
    bool accountReserved_;  // a reservation in the per-account count to release
    bool done_ = false;
  };

  // `log` must outlive the throttle.
  LoginThrottle(AttemptLog& log, LoginLimits limits, Clock clock = systemClock());

  // Admits one attempt for `emailLower` from `clientAddress` (a socket
  // address; its client key is computed here) and reserves it, or throws
  // rapport::Error 429 with Retry-After, counting nothing.
  [[nodiscard]] Attempt begin(const std::string& emailLower, const std::string& clientAddress);

  const LoginLimits& limits() const { return limits_; }

 private:
  void release(const Attempt& attempt);

  AttemptLog& log_;
  LoginLimits limits_;
  Clock clock_;
};

}  // namespace rapport::host::accounts
