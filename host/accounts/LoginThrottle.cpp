#include "accounts/LoginThrottle.h"

#include <utility>

#include "metrics/Metrics.h"
#include "rapport/error.h"
#include "ratelimit/ClientKey.h"

namespace rapport::host::accounts {

namespace {

constexpr const char* kMessage = "Too many login attempts. Please try again later.";

// How long a successful login exempts its client key from the per-account
// slowing of that account.
constexpr std::int64_t kKnownClientMicros = 30LL * 24 * 3600 * kMicrosPerSecond;

// Keys of the four counts. A client key never contains '|', so the last one
// separates it from whatever the e-mail field held.
std::string pairKey(const std::string& email, const std::string& client) {
  return "login:" + email + "|" + client;
}
std::string accountKey(const std::string& email) {
  return "login-account:" + email;
}
std::string slotKey(const std::string& email) {
  return "login-slot:" + email;
}
std::string knownKey(const std::string& email, const std::string& client) {
  return "login-known:" + email + "|" + client;
}

[[noreturn]] void refuse(const AttemptWindow& window, std::int64_t now, std::int64_t windowMicros) {
  metrics::loginThrottled();
  throw rapport::Error::tooManyRequests(window.retryAfterSeconds(now, windowMicros), kMessage);
}

}  // namespace

LoginThrottle::Attempt::Attempt(LoginThrottle& throttle, std::string emailLower, std::string client,
                                std::int64_t at, bool accountReserved)
    : throttle_(throttle),
      emailLower_(std::move(emailLower)),
      client_(std::move(client)),
      at_(at),
      accountReserved_(accountReserved) {}

void LoginThrottle::Attempt::succeeded() {
  if (done_) return;
  done_ = true;
  throttle_.release(*this);
}

LoginThrottle::LoginThrottle(AttemptLog& log, LoginLimits limits, Clock clock)
    : log_(log), limits_(limits), clock_(std::move(clock)) {}

LoginThrottle::Attempt LoginThrottle::begin(const std::string& emailLower,
                                            const std::string& clientAddress) {
  const std::int64_t now = clock_();
  const std::string client = clientKey(clientAddress);
  const std::string pair = pairKey(emailLower, client);
  const std::int64_t window = limits_.window * kMicrosPerSecond;
  const AttemptAdmission admission = log_.tryRecord(pair, now, limits_.maxAttempts, window);
  if (!admission.admitted) refuse(admission.window, now, window);

  // Rule 2: the first accountMaxAttempts failures within the window pass
  // freely (and are reserved like the pair's).
  const std::string account = accountKey(emailLower);
  const std::int64_t accountWindow = limits_.accountWindow * kMicrosPerSecond;
  if (log_.tryRecord(account, now, limits_.accountMaxAttempts, accountWindow).admitted) {
    return Attempt(*this, emailLower, client, now, true);
  }
  // Beyond them the account is slowed: one attempt per interval from
  // unknown clients, while clients that logged in before pass.
  const bool known =
      log_.recent(knownKey(emailLower, client), now, 1, kKnownClientMicros).count > 0;
  if (!known) {
    const std::int64_t interval = limits_.accountInterval * kMicrosPerSecond;
    const AttemptAdmission slot = log_.tryRecord(slotKey(emailLower), now, 1, interval);
    if (!slot.admitted) {
      log_.release(pair, now);  // refused: not counted
      refuse(slot.window, now, interval);
    }
  }
  // Keeps the account slowed while failures go on. Not taken back on
  // success: the count is full anyway, and taking one back would hand the
  // guesser a free attempt after every login of the owner.
  log_.record(account, now, limits_.accountMaxAttempts, accountWindow);
  return Attempt(*this, emailLower, client, now, false);
}

void LoginThrottle::release(const Attempt& attempt) {
  log_.release(pairKey(attempt.emailLower_, attempt.client_), attempt.at_);
  if (attempt.accountReserved_) log_.release(accountKey(attempt.emailLower_), attempt.at_);
  log_.record(knownKey(attempt.emailLower_, attempt.client_), clock_(), 1, kKnownClientMicros);
}

}  // namespace rapport::host::accounts
