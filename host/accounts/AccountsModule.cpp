#include "accounts/AccountsModule.h"

#include <chrono>

#include "accounts/AccountsApiDoc.h"
#include "accounts/CompanyStore.h"
#include "accounts/reset/ResetRoutes.h"
#include "accounts/social/IdentityRoutes.h"
#include "accounts/social/SocialRoutes.h"
#include "accounts/twofactor/TwoFactor.h"
#include "accounts/verification/VerificationRoutes.h"
#include "rapport/ids.h"
#include "ratelimit/MemoryAttemptLog.h"

namespace rapport::host::accounts {

namespace {

// Expired and revoked tokens are kept a day for forensics, then deleted
// (a refreshed token lives on while its family does: TokenService::purge).
constexpr std::int64_t kPurgeAfterSeconds = 24 * 3600;

}  // namespace

AccountsModule::AccountsModule(AccountsOptions options, TokenService& tokens,
                               PasswordHasher& hasher, mail::Mailer& mailer, Clock clock)
    : tokens_(tokens),
      hasher_(hasher),
      mailer_(mailer),
      clock_(clock),
      ownedAttempts_(std::make_unique<MemoryAttemptLog>()),
      throttle_(*ownedAttempts_, options.loginLimits(), clock),
      attempts_(*ownedAttempts_) {}

AccountsModule::AccountsModule(AccountsOptions options, TokenService& tokens,
                               PasswordHasher& hasher, mail::Mailer& mailer,
                               AttemptLog& loginAttempts, Clock clock)
    : tokens_(tokens),
      hasher_(hasher),
      mailer_(mailer),
      clock_(clock),
      throttle_(loginAttempts, options.loginLimits(), clock),
      attempts_(loginAttempts) {}

AccountsModule::~AccountsModule() = default;

rapport::ModuleInfo AccountsModule::info() const {
  return {"accounts", "1.0.0", "Users, tenant companies, memberships and bearer tokens.", {}, {}};
}

void AccountsModule::setup(rapport::Host& host, rapport::Registry& registry) {
  context_.reset(new AccountsContext{host.db(), host.log(), tokens_, hasher_, mailer_, throttle_,
                                     clock_, secondFactor_});
  auth_ = std::make_unique<AuthRoutes>(*context_);
  session_ = std::make_unique<SessionRoutes>(*context_);
  companies_ = std::make_unique<CompanyRoutes>(*context_);
  members_ = std::make_unique<MemberRoutes>(*context_);
  profile_ = std::make_unique<ProfileRoutes>(*context_);
  auth_->registerOn(registry);
  session_->registerOn(registry);
  companies_->registerOn(registry);
  members_->registerOn(registry);
  profile_->registerOn(registry);
  social_ = std::make_unique<social::SocialRoutes>(
      *context_, social::SocialOptions::fromConfig(host.config()), host.secrets());
  social_->registerOn(registry);
  reset_ = std::make_unique<reset::ResetRoutes>(
      *context_, reset::ResetOptions::fromConfig(host.config()), attempts_);
  reset_->registerOn(registry);
  twoFactor_ = std::make_unique<twofactor::TwoFactor>(
      *context_, host.secrets(), twofactor::TwoFactorOptions::fromConfig(host.config()));
  twoFactor_->registerOn(registry);
  identities_ = std::make_unique<social::IdentityRoutes>(*context_);
  identities_->registerOn(registry);
  verification_ = std::make_unique<verification::VerificationRoutes>(
      *context_, verification::VerificationOptions::fromConfig(host.config()), attempts_);
  verification_->registerOn(registry);
  apiKeys_ = std::make_unique<apikeys::ApiKeyRoutes>(
      *context_, scopes_ ? scopes_ : [] { return std::vector<std::string>{}; });
  apiKeys_->registerOn(registry);
  describeAccountsRoutes(registry);
  secondFactor_ = twoFactor_->gate();
  registerRecordType(registry);
  registerPurgeJob(registry);
  registerKeyUsageJob(registry);
}

void AccountsModule::registerRecordType(rapport::Registry& registry) {
  // The rule "owner_id must be a member of the active company" (decisions §1).
  registry.recordType("user", {.exists =
                                   [](Queryable& db, const std::string& companyId,
                                      const std::string& id, rapport::RecordLock lock) {
                                     return rapport::hasPrefix(id, "user_") &&
                                            companies::isMember(db, companyId, id, lock);
                                   },
                               .fetch = {}});
}

void AccountsModule::registerPurgeJob(rapport::Registry& registry) {
  registry.job(
      {.name = "token-purge", .interval = std::chrono::hours(1), .run = [this](JobContext& job) {
         tokens_.purge(kPurgeAfterSeconds, 1000, [&job] { return job.stopping(); });
       }});
}

void AccountsModule::registerKeyUsageJob(rapport::Registry& registry) {
  rapport::Database& db = context_->db;
  apikeys::KeyUsage& usage = tokens_.keyUsage();
  const JobHandle wake = registry.job({.name = "api-key-usage",
                                       .interval = std::chrono::seconds(10),
                                       .run = [&db, &usage](JobContext&) {
                                         for (const auto& [id, when] : usage.take()) {
                                           apikeys::markUsed(db, id, when, usage.every());
                                         }
                                       }});
  tokens_.onKeyUse([wake] { wake->wakeOne(); });
}

}  // namespace rapport::host::accounts
