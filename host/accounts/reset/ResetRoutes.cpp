#include "accounts/reset/ResetRoutes.h"

#include <chrono>

#include "accounts/PasswordRules.h"
#include "rapport/error.h"
#include "rapport/validation.h"
#include "ratelimit/ClientKey.h"

namespace rapport::host::accounts::reset {

namespace {

// Per client key: IPv4 as is, IPv6 per /64 (ratelimit/ClientKey.h).
std::string forgotKey(const std::string& clientAddress) {
  return "forgot-password:" + rapport::host::clientKey(clientAddress);
}

std::string resetKey(const std::string& clientAddress) {
  return "reset-password:" + rapport::host::clientKey(clientAddress);
}

}  // namespace

ResetRoutes::ResetRoutes(AccountsContext& context, ResetOptions options, AttemptLog& attempts)
    : ctx_(context), options_(options), attempts_(attempts), flow_(context, std::move(options)) {}

void ResetRoutes::registerOn(rapport::Registry& registry) {
  const RouteOptions publicRoute{.access = Access::Public, .roles = {}};
  registry.route(
      "POST", "/auth/forgot-password", [this](const Request& req) { return forgot(req); },
      publicRoute);
  registry.route(
      "POST", "/auth/reset-password", [this](const Request& req) { return resetPassword(req); },
      publicRoute);
  // Woken by every request; the interval only catches a wake lost to a
  // restart of the job thread.
  sender_ = registry.job({.name = "password-reset",
                          .interval = std::chrono::seconds(5),
                          .run = [this](JobContext&) { flow_.processQueued(); },
                          .concurrency = 1});
  registry.job({.name = "password-reset-purge",
                .interval = std::chrono::hours(1),
                .run = [this](JobContext&) { flow_.purgeExpired(); },
                .concurrency = 1});
}

void ResetRoutes::refuseWhenFull(const std::string& key, std::int64_t max,
                                 std::int64_t windowSeconds, const char* message) {
  const std::int64_t now = ctx_.clock();
  const std::int64_t windowMicros = windowSeconds * kMicrosPerSecond;
  const AttemptWindow recent = attempts_.recent(key, now, max, windowMicros);
  if (recent.count < max) return;
  throw rapport::Error::tooManyRequests(recent.retryAfterSeconds(now, windowMicros), message);
}

void ResetRoutes::record(const std::string& key, std::int64_t max, std::int64_t windowSeconds) {
  attempts_.record(key, ctx_.clock(), max, windowSeconds * kMicrosPerSecond);
}

rapport::Response ResetRoutes::forgot(const rapport::Request& req) {
  const std::string key = forgotKey(req.clientAddress);
  // Every request counts, valid or not, answered or refused.
  refuseWhenFull(key, options_.forgotMaxRequests, options_.forgotWindow,
                 "Too many password reset requests. Please try again later.");
  record(key, options_.forgotMaxRequests, options_.forgotWindow);
  Validator v(req.bodyObject());
  auto email = v.email("email", true);
  v.check();
  // The same work for every address: queue it and wake the job.
  flow_.request(*email.value);
  if (sender_) sender_->wakeOne();
  return rapport::Response::messageOnly(kForgotMessage);
}

rapport::Response ResetRoutes::resetPassword(const rapport::Request& req) {
  Validator v(req.bodyObject());
  auto token = v.string("token", {.required = true, .max = 255, .trim = true});
  auto email = v.email("email", true);
  auto password = readNewPassword(v);
  // Unlink every social identity too (ResetIdentities.h).
  auto removeIdentities = v.boolean("remove_identities");
  v.check();
  const std::string key = resetKey(req.clientAddress);
  refuseWhenFull(key, options_.resetMaxAttempts, options_.resetWindow,
                 "Too many password reset attempts. Please try again later.");
  // Checked before hashing so a wrong token costs no argon2 time.
  if (!flow_.usable(*token.value, *email.value)) {
    record(key, options_.resetMaxAttempts, options_.resetWindow);
    throw rapport::Error::invalidField("token", kInvalidToken);
  }
  const std::string hash = ctx_.hasher.hash(*password.value);
  std::string userId;
  // The token may have been spent meanwhile (a concurrent reset): same answer.
  if (!flow_.reset(*token.value, *email.value, hash, userId,
                   removeIdentities.value.value_or(false))) {
    record(key, options_.resetMaxAttempts, options_.resetWindow);
    throw rapport::Error::invalidField("token", kInvalidToken);
  }
  ctx_.log.info("password reset user_id=" + userId);
  return rapport::Response::messageOnly(kResetMessage);
}

}  // namespace rapport::host::accounts::reset
