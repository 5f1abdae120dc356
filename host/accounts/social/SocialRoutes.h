// Social login (API "Social login" variants A and B, decisions §5):
//
//   GET  /auth/social/{provider}/redirect[?redirect_uri=]
//        -> {authorization_url, redirect_url, state}, and the binding cookie
//        (StateBinding.h)
//   POST /auth/social/{provider}/callback {code, state}   (variant A)
//        -> the token object with user (or the two-factor challenge)
//   GET  /auth/social/{provider}/callback?code&state      (variant B)
//        -> {exchange_code}
//   POST /auth/social/exchange {exchange_code}            (variant B)
//        -> the token object with user (or the two-factor challenge)
//
// All public. The state (256 random bits) is kept server-side as its SHA-256
// with the provider, the redirect URI, the PKCE verifier (sealed with the
// host SecretBox under "social-state:<hash>") and the client it is bound to
// (StateBinding.h); it lives 10 minutes and is consumed by the first
// callback of its client that presents it, whatever happens next.
// The exchange code (256 bits, stored hashed) lives 60 seconds, is single
// use, and is bound to the user the callback resolved.
//
// The user: the identity (provider, subject) already linked; else the user
// whose e-mail equals the provider's VERIFIED e-mail, provided that user
// proved the address too (email_verified_at): the identity is linked to it;
// else, for a verified address nobody has, a new user (address verified)
// without a password and an initial company. An existing user's address
// that either side has not verified answers 409 and logs into nothing; an
// unverified address nobody has answers 422 and creates nothing. Then, as for a password login: a
// disabled user 403; a two-factor user the challenge of the two-factor gate (503 while none is
// installed: fail closed); a user without company 403; else a new token.
// docs/social-login.md has the whole design.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "accounts/AccountsContext.h"
#include "accounts/social/ProviderClient.h"
#include "accounts/social/SocialOptions.h"
#include "accounts/social/SocialStore.h"
#include "rapport/module.h"
#include "rapport/secrets.h"

namespace rapport::host::accounts::social {

inline constexpr std::int64_t kStateTtlSeconds = 600;    // decisions §5
inline constexpr std::int64_t kExchangeTtlSeconds = 60;  // decisions §5

class SocialRoutes {
 public:
  // `context` and `secrets` must outlive the routes.
  SocialRoutes(AccountsContext& context, SocialOptions options, const rapport::SecretBox& secrets);

  // The four routes and the job "social-purge" (expired states and exchange
  // codes, every 10 minutes).
  void registerOn(rapport::Registry& registry);

  rapport::Response redirect(const rapport::Request& req);
  rapport::Response callback(const rapport::Request& req);     // POST, variant A
  rapport::Response callbackGet(const rapport::Request& req);  // GET, variant B
  rapport::Response exchange(const rapport::Request& req);

  // Deletes states and exchange codes expired before now; returns how many.
  std::int64_t purgeExpired();

  const SocialOptions& options() const { return options_; }

 private:
  // The configured provider named in the path; 404 otherwise.
  const ProviderConfig& providerOf(const rapport::Request& req) const;
  // Consumes the state (422 on state), exchanges the code (401/502), reads
  // the profile and resolves the user.
  UserRecord signIn(const ProviderConfig& provider, const std::string& code,
                    const std::string& state, const StateClaim& claim);
  UserRecord resolveUser(const ProviderConfig& provider, const ProviderProfile& profile);
  // The answer for a resolved user: token object, challenge, 403 or 503.
  rapport::Response answerFor(const UserRecord& user);

  AccountsContext& ctx_;
  SocialOptions options_;
  const rapport::SecretBox& secrets_;
  ProviderClient client_;
};

}  // namespace rapport::host::accounts::social
