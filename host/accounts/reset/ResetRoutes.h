// POST /auth/forgot-password and POST /auth/reset-password (public), and
// the jobs behind them (decisions §6; PasswordReset.h has the flow).
//
// Client addresses are counted by ratelimit/ClientKey.h's key (IPv4 as is,
// IPv6 per /64).
//
// forgot-password {email}: 422 unless `email` is an e-mail address; every
// request counts against its client address (auth.reset.forgot_max_requests
// within auth.reset.forgot_window, a sliding window; then 429 with
// Retry-After); otherwise 200 with kForgotMessage, always: the address is
// queued for the "password-reset" job and nothing else happens in the
// request.
//
// reset-password {token, email, password, password_confirmation,
// remove_identities?}: the
// password follows the register rules (422 on `password`); a token that is
// not usable is 422 on `token` and counts against the client address
// (auth.reset.max_attempts within auth.reset.window, then 429: guessing a
// 256-bit token is hopeless, but the limit keeps anyone from trying);
// success is 200 with a message only (no token: the user signs in); the
// address is verified by it, and `remove_identities: true` unlinks every
// social identity of the account (ResetIdentities.h).
//
// Jobs: "password-reset" (woken by each request; drains the queue) and
// "password-reset-purge" (hourly; deletes tokens expired or used over a day
// ago).
#pragma once

#include <memory>

#include "accounts/AccountsContext.h"
#include "accounts/reset/PasswordReset.h"
#include "accounts/reset/ResetOptions.h"
#include "rapport/module.h"
#include "ratelimit/AttemptLog.h"

namespace rapport::host::accounts::reset {

inline constexpr const char* kForgotMessage =
    "If an account exists for this e-mail address, a password reset link has been sent to it.";
inline constexpr const char* kResetMessage = "Your password has been reset.";

class ResetRoutes {
 public:
  // `attempts` keeps the per-address counts (the module's attempt log, so
  // instances that share one share these limits); it must outlive this.
  ResetRoutes(AccountsContext& context, ResetOptions options, AttemptLog& attempts);

  void registerOn(rapport::Registry& registry);

  rapport::Response forgot(const rapport::Request& req);
  rapport::Response resetPassword(const rapport::Request& req);

  PasswordReset& flow() { return flow_; }

 private:
  // 429 when `key` already has `max` attempts inside `windowSeconds`.
  void refuseWhenFull(const std::string& key, std::int64_t max, std::int64_t windowSeconds,
                      const char* message);
  void record(const std::string& key, std::int64_t max, std::int64_t windowSeconds);

  AccountsContext& ctx_;
  ResetOptions options_;
  AttemptLog& attempts_;
  PasswordReset flow_;
  rapport::JobHandle sender_;
};

}  // namespace rapport::host::accounts::reset
