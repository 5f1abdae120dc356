// Two-factor login (decisions §4) as one component of the accounts module:
// the routes that turn it on and off (SetupRoutes), the login challenge and
// its endpoints (ChallengeRoutes), and the hourly purge of old challenges
// (job "accounts.two-factor-purge").
//
// AccountsModule::setup builds it and installs gate() as the module's
// SecondFactorGate, so AuthRoutes::login (and social login) hand a 2FA
// account to it instead of issuing a token.
//
// Tables: migrations/<dialect>/0006_two_factor.sql. TOTP secrets are sealed
// with the host SecretBox under "totp:<user_id>"; recovery codes, challenge
// ids and e-mailed codes are stored as SHA-256 hex only.
#pragma once

#include <cstdint>

#include "accounts/AccountsContext.h"
#include "accounts/twofactor/ChallengeRoutes.h"
#include "accounts/twofactor/SetupRoutes.h"
#include "accounts/twofactor/TwoFactorOptions.h"
#include "rapport/module.h"
#include "rapport/secrets.h"

namespace rapport::host::accounts::twofactor {

// Challenges are kept a day past their expiry (the per-user budget of wrong
// codes looks back an hour; the rest is for forensics), then deleted.
inline constexpr std::int64_t kChallengePurgeAfterSeconds = 24 * 3600;

class TwoFactor {
 public:
  // Everything passed in must outlive this object.
  TwoFactor(AccountsContext& context, const rapport::SecretBox& secrets, TwoFactorOptions options)
      : setup_(context, secrets), challenges_(context, secrets, options) {}

  void registerOn(rapport::Registry& registry);

  // The login seam: answers the challenge instead of a token.
  SecondFactorGate gate();

  ChallengeRoutes& challenges() { return challenges_; }

 private:
  SetupRoutes setup_;
  ChallengeRoutes challenges_;
};

}  // namespace rapport::host::accounts::twofactor
