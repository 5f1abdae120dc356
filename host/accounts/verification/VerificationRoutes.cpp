#include "accounts/verification/VerificationRoutes.h"

#include <chrono>

#include "accounts/verification/VerificationMail.h"
#include "accounts/verification/VerificationTokenStore.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/validation.h"
#include "ratelimit/ClientKey.h"

namespace rapport::host::accounts::verification {

namespace {

constexpr std::size_t kVerificationTokenBytes = 32;  // 256 bits
// Expired and used tokens are kept a day (what was asked, when), then deleted.
constexpr std::int64_t kVerificationPurgeAfterSeconds = 24 * 3600;
constexpr const char* kTooManyMails =
    "Too many verification e-mails were asked for. Please try again later.";

}  // namespace

VerificationRoutes::VerificationRoutes(AccountsContext& context, VerificationOptions options,
                                       AttemptLog& attempts)
    : ctx_(context), options_(std::move(options)), attempts_(attempts) {}

void VerificationRoutes::registerOn(rapport::Registry& registry) {
  registry.route("POST", "/auth/email/verification",
                 [this](const Request& req) { return send(req); });
  registry.route(
      "POST", "/auth/email/verify", [this](const Request& req) { return verify(req); },
      RouteOptions{.access = Access::Public, .roles = {}});
  registry.job({.name = "email-verification-purge",
                .interval = std::chrono::hours(1),
                .run = [this](JobContext&) { purgeExpired(); },
                .concurrency = 1});
}

void VerificationRoutes::refuseWhenFull(const std::string& key, std::int64_t max,
                                        const char* message) {
  const std::int64_t now = ctx_.clock();
  const std::int64_t windowMicros = options_.window * kMicrosPerSecond;
  const AttemptWindow recent = attempts_.recent(key, now, max, windowMicros);
  if (recent.count < max) return;
  throw rapport::Error::tooManyRequests(recent.retryAfterSeconds(now, windowMicros), message);
}

void VerificationRoutes::record(const std::string& key, std::int64_t max) {
  attempts_.record(key, ctx_.clock(), max, options_.window * kMicrosPerSecond);
}

rapport::Response VerificationRoutes::send(const rapport::Request& req) {
  const std::optional<UserRecord> user = users::findById(ctx_.db, req.identity.userId);
  if (!user) throw rapport::Error::unauthorized();
  if (user->emailVerifiedAt)
    throw rapport::Error::conflict("Your e-mail address is already verified.");
  const std::string userKey = "email-verification-user:" + user->id;
  const std::string clientKey = "email-verification:" + rapport::host::clientKey(req.clientAddress);
  refuseWhenFull(userKey, options_.maxRequests, kTooManyMails);
  refuseWhenFull(clientKey, options_.maxRequests, kTooManyMails);
  record(userKey, options_.maxRequests);
  record(clientKey, options_.maxRequests);

  const std::string token = rapport::randomToken(kVerificationTokenBytes);
  const std::int64_t now = ctx_.clock();
  tokens::VerificationRow row;
  row.id = rapport::newId("emv_");
  row.tokenHash = rapport::sha256Hex(token);
  row.userId = user->id;
  row.emailLower = rapport::toLower(user->email);
  row.createdAt = now;
  row.expiresAt = now + options_.tokenTtl * kMicrosPerSecond;
  ctx_.db.transaction("", [&](Tx& tx) {
    // Only the newest mail works, as a user who asked twice expects.
    tokens::deleteForUser(tx, user->id);
    tokens::insert(tx, row);
  });
  ctx_.mailer.send(
      mail::compose(verificationLetter(user->email, token, options_.tokenTtl, options_.verifyUrl)));
  ctx_.log.info("e-mail verification mail queued user_id=" + user->id);
  return rapport::Response::messageOnly(kVerificationSent);
}

rapport::Response VerificationRoutes::verify(const rapport::Request& req) {
  Validator v(req.bodyObject());
  auto token = v.string("token", {.required = true, .max = 255, .trim = true});
  v.check();
  const std::string key = "email-verify:" + rapport::host::clientKey(req.clientAddress);
  refuseWhenFull(key, options_.maxAttempts,
                 "Too many e-mail verification attempts. Please try again later.");
  std::optional<tokens::Claimed> claimed;
  ctx_.db.transaction("", [&](Tx& tx) {
    const std::int64_t now = ctx_.clock();
    claimed = tokens::claim(tx, rapport::sha256Hex(*token.value), now);
    if (!claimed) return;
    users::markEmailVerified(tx, claimed->userId, claimed->emailLower, now);
    tokens::deleteForUser(tx, claimed->userId, claimed->id);
  });
  if (!claimed) {
    record(key, options_.maxAttempts);
    throw rapport::Error::invalidField("token", kInvalidVerificationToken);
  }
  ctx_.log.info("e-mail verified user_id=" + claimed->userId);
  return rapport::Response::messageOnly(kEmailVerified);
}

std::int64_t VerificationRoutes::purgeExpired() {
  return tokens::purgeExpired(ctx_.db,
                              ctx_.clock() - kVerificationPurgeAfterSeconds * kMicrosPerSecond);
}

}  // namespace rapport::host::accounts::verification
