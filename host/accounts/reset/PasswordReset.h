// The password reset itself (decisions §6), apart from HTTP.
//
// Asking (forgot-password) and mailing are split so the request does the
// same work whether or not the address belongs to a user: the request only
// queues the address (request()); a background job (processQueued(), run by
// the "password-reset" job of ResetRoutes) looks the user up, stores a
// fresh token and hands the mail to the mailer, which is asynchronous too.
// Nothing the client sees (status, body, headers, timing) depends on the
// user's existence.
//
// Per address, the job:
//   - sends nothing to an unknown address, nor to a disabled user (the
//     reset would not let them in: login answers 403 to a disabled account);
//   - sends to users without a password (social login) too: the reset is how
//     they set one;
//   - sends at most one mail per user per minInterval seconds (a flood of
//     requests from many client addresses does not flood the inbox);
//   - stores a new token (256 random bits, base64url; only its SHA-256 hex
//     is kept) and deletes the user's earlier ones: only the newest mail
//     works, as a user who asked twice expects.
//
// reset() checks and spends a token: a wrong, used or expired token, one of
// another e-mail, one whose user changed address or was disabled since, is
// 422 on `token`. On success, in one transaction: the new password hash, the
// token marked used, the user's other reset tokens deleted, every bearer
// token of the user revoked, the time of the reset recorded (for a day the
// e-mailed two-factor code is refused: MailedReset.h), the address marked
// verified, and, when asked, the linked social identities removed
// (ResetIdentities.h). The reset mail names the linked providers.
//
// Threading: thread-safe. The queue is bounded (kQueueCapacity); an address
// that finds it full is dropped and logged (the request is answered alike:
// it must not fail nor reveal anything). It lives in memory: addresses
// queued when the server stops are not mailed (the user asks again).
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include "accounts/AccountsContext.h"
#include "accounts/reset/ResetOptions.h"

namespace rapport::host::accounts::reset {

// The 422 message on `token`.
inline constexpr const char* kInvalidToken = "This password reset token is invalid or has expired.";

class PasswordReset {
 public:
  static constexpr std::size_t kQueueCapacity = 1000;

  PasswordReset(AccountsContext& context, ResetOptions options);

  // Queues `emailLower` for the job; false when the queue was full (dropped).
  bool request(const std::string& emailLower);

  // Handles every queued address (see above); returns how many it took.
  std::size_t processQueued();

  // The job's work for one address: true when a mail was handed to the mailer.
  bool sendReset(const std::string& emailLower);

  // True when `token` is usable for `emailLower` now (reset-password checks
  // this before spending argon2 time on the new password).
  bool usable(const std::string& token, const std::string& emailLower);

  // Spends the token and stores `passwordHash`; false (nothing changed) when
  // the token is not usable. Returns the user id through `userId`.
  // `removeIdentities`: unlink every social identity of the user too.
  bool reset(const std::string& token, const std::string& emailLower,
             const std::string& passwordHash, std::string& userId, bool removeIdentities = false);

  // Deletes tokens expired or used more than a day ago; returns how many.
  std::int64_t purgeExpired();

  std::size_t queued() const;

 private:
  std::optional<std::string> nextQueued();

  AccountsContext& ctx_;
  ResetOptions options_;
  mutable std::mutex mutex_;
  std::deque<std::string> queue_;
};

}  // namespace rapport::host::accounts::reset
