// Accounts and tenancy as a host-internal module: users, tenant companies,
// memberships and bearer tokens. Statically linked into rapportd, but it
// registers its routes through the same rapport::Registry as every loadable
// module and stores everything through rapport::Database, so it runs on
// SQLite and PostgreSQL alike. Its tables come from the host migration
// migrations/<dialect>/0002_accounts.sql (owner "host"), not from setup().
//
// Routes (under /v1): POST /auth/register, POST /auth/login (public);
// POST /auth/refresh, POST /auth/logout, GET /auth/me, POST /auth/context,
// GET|POST /user/companies, GET /user/companies/{id}, GET|PATCH
// /user/profile, PATCH /user/password, GET|POST /company/members,
// PATCH|DELETE /company/members/{user_id} (authenticated).
// POST /auth/forgot-password, POST /auth/reset-password (public;
// reset/ResetRoutes.h, with the jobs "accounts.password-reset" and
// "accounts.password-reset-purge").
// GET /auth/social/{provider}/redirect, GET|POST /auth/social/{provider}/callback,
// POST /auth/social/exchange (public; social/SocialRoutes.h, configured by
// the social.* keys, with the job "accounts.social-purge").
// GET /user/identities, DELETE /user/identities/{provider} (authenticated;
// social/IdentityRoutes.h).
// POST /auth/email/verification (authenticated), POST /auth/email/verify
// (public) (verification/VerificationRoutes.h, with the job
// "accounts.email-verification-purge").
// Record type "user": exists when the user is a member of the company.
// Job "accounts.token-purge": hourly, deletes tokens expired or revoked for
// over a day, in batches (TokenService::purge).
// GET|POST /api-keys, GET|PATCH|DELETE /api-keys/{id} (owner or admin;
// apikeys/ApiKeyRoutes.h), with the job "accounts.api-key-usage" that writes
// last_used_at.
//
// The app wires it up:
//   auto options = AccountsOptions::fromConfig(config);
//   PasswordHasher hasher(options.argon2);
//   TokenService tokens(db, options.tokenOptions());   // also the Authenticator
//   RevocationListener notices(conninfo, tokens);       // PostgreSQL: start() before serving
//   auto mailer = mail::MailService::fromConfig(config, db, box);  // its sendJob() runs
//   AccountsModule accounts(options, tokens, hasher, *mailer);  // login attempts in memory
// or, when several instances share the login throttle, with a shared
// AttemptLog as fourth argument. Everything passed in must outlive the module.
#pragma once

#include <memory>

#include "accounts/AccountsContext.h"
#include "accounts/AccountsOptions.h"
#include "accounts/AuthRoutes.h"
#include "accounts/CompanyRoutes.h"
#include "accounts/LoginThrottle.h"
#include "accounts/MemberRoutes.h"
#include "accounts/PasswordHasher.h"
#include "accounts/ProfileRoutes.h"
#include "accounts/SessionRoutes.h"
#include "accounts/TokenService.h"
#include "accounts/apikeys/ApiKeyRoutes.h"
#include "mail/Mailer.h"
#include "rapport/module.h"
#include "ratelimit/AttemptLog.h"

namespace rapport::host::accounts {

namespace social {
class SocialRoutes;    // accounts/social/SocialRoutes.h
class IdentityRoutes;  // accounts/social/IdentityRoutes.h
}  // namespace social
namespace verification {
class VerificationRoutes;  // accounts/verification/VerificationRoutes.h
}
namespace reset {
class ResetRoutes;  // accounts/reset/ResetRoutes.h
}
namespace twofactor {
class TwoFactor;  // accounts/twofactor/TwoFactor.h
}

class AccountsModule : public rapport::Module {
 public:
  // Keeps failed logins in this process's memory (MemoryAttemptLog).
  // `clock` is for tests; it should be the clock `tokens` was given.
  AccountsModule(AccountsOptions options, TokenService& tokens, PasswordHasher& hasher,
                 mail::Mailer& mailer, Clock clock = systemClock());
  // Keeps failed logins in `loginAttempts`, which may be shared by instances.
  AccountsModule(AccountsOptions options, TokenService& tokens, PasswordHasher& hasher,
                 mail::Mailer& mailer, AttemptLog& loginAttempts, Clock clock = systemClock());
  ~AccountsModule() override;

  rapport::ModuleInfo info() const override;
  void setup(rapport::Host& host, rapport::Registry& registry) override;

  // Replaces the two-factor step of login (decisions §4) that setup()
  // installs (twofactor::TwoFactor); call it after setup(). With an empty
  // gate, login of a 2FA account fails closed (503, no token).
  void setSecondFactorGate(SecondFactorGate gate) { secondFactor_ = std::move(gate); }
  // The scopes an API key may hold (Router::scopes); call before setup().
  // Unset: none, so no key can be made.
  void setScopeCatalogue(apikeys::ScopeCatalogue scopes) { scopes_ = std::move(scopes); }

 private:
  void registerRecordType(rapport::Registry& registry);
  void registerPurgeJob(rapport::Registry& registry);
  // Writes the API keys' last_used_at, woken by their first use a minute.
  void registerKeyUsageJob(rapport::Registry& registry);

  TokenService& tokens_;
  PasswordHasher& hasher_;
  mail::Mailer& mailer_;
  Clock clock_;
  std::unique_ptr<AttemptLog> ownedAttempts_;  // set by the in-memory constructor only
  LoginThrottle throttle_;
  SecondFactorGate secondFactor_;
  std::unique_ptr<AccountsContext> context_;
  std::unique_ptr<AuthRoutes> auth_;
  std::unique_ptr<SessionRoutes> session_;
  std::unique_ptr<CompanyRoutes> companies_;
  std::unique_ptr<MemberRoutes> members_;
  std::unique_ptr<ProfileRoutes> profile_;
  std::unique_ptr<social::SocialRoutes> social_;  // social login (social.* keys)
  AttemptLog& attempts_;                       // login's log: forgot/reset-password count in it too
  std::unique_ptr<reset::ResetRoutes> reset_;  // forgot/reset-password
  std::unique_ptr<twofactor::TwoFactor> twoFactor_;                 // 2FA routes and the login gate
  std::unique_ptr<social::IdentityRoutes> identities_;              // linked social identities
  std::unique_ptr<verification::VerificationRoutes> verification_;  // e-mail verification
  apikeys::ScopeCatalogue scopes_;
  std::unique_ptr<apikeys::ApiKeyRoutes> apiKeys_;  // /api-keys
};

}  // namespace rapport::host::accounts
