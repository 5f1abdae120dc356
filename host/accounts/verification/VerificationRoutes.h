// E-mail verification (docs/accounts.md, "E-mail verification"):
//
//   POST /auth/email/verification   (authenticated)
//        mails a single-use token for the user's current address; 409 when
//        the address is verified already; 429 (Retry-After) past
//        auth.email_verification.max_requests within the window, counted
//        per user AND per client address (a user's token must not let
//        anyone flood the owner of an address with mail)
//   POST /auth/email/verify {token} (public)
//        marks the address verified; a wrong, used or expired token, or one
//        whose user has changed address since, is 422 on `token` and
//        counts against the client address (then 429)
//
// Nothing is mailed at registration: a user asks when they want to prove
// the address (social login links a provider only to a proved address:
// docs/social-login.md). A password reset by e-mail proves the address too
// (reset/PasswordReset), and so does a sign-up through a provider that
// vouched for it.
//
// A token: 256 random bits (base64url), only its SHA-256 hex stored, bound
// to the address it was mailed to, valid auth.email_verification_ttl; a new
// request replaces the user's earlier tokens. Job
// "email-verification-purge" (hourly) deletes tokens expired or used over a
// day ago.
#pragma once

#include <cstdint>
#include <string>

#include "accounts/AccountsContext.h"
#include "accounts/verification/VerificationOptions.h"
#include "rapport/module.h"
#include "ratelimit/AttemptLog.h"

namespace rapport::host::accounts::verification {

inline constexpr const char* kInvalidVerificationToken =
    "This verification token is invalid or has expired.";
inline constexpr const char* kVerificationSent =
    "A verification link has been sent to your e-mail address.";
inline constexpr const char* kEmailVerified = "Your e-mail address has been verified.";

class VerificationRoutes {
 public:
  // `attempts` keeps the counts (the module's attempt log); it must outlive this.
  VerificationRoutes(AccountsContext& context, VerificationOptions options, AttemptLog& attempts);

  void registerOn(rapport::Registry& registry);

  rapport::Response send(const rapport::Request& req);
  rapport::Response verify(const rapport::Request& req);

  // Deletes tokens expired or used more than a day ago; returns how many.
  std::int64_t purgeExpired();

 private:
  // 429 when `key` already has `max` attempts within the window.
  void refuseWhenFull(const std::string& key, std::int64_t max, const char* message);
  void record(const std::string& key, std::int64_t max);

  AccountsContext& ctx_;
  VerificationOptions options_;
  AttemptLog& attempts_;
};

}  // namespace rapport::host::accounts::verification
