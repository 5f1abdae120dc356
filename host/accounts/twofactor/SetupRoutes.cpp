#include "accounts/twofactor/SetupRoutes.h"

#include "accounts/twofactor/CodeText.h"
#include "accounts/twofactor/RecoveryCodes.h"
#include "accounts/twofactor/Totp.h"
#include "accounts/twofactor/TwoFactorStore.h"
#include "rapport/error.h"
#include "rapport/validation.h"

namespace rapport::host::accounts::twofactor {

namespace {

constexpr const char* kAlreadyOn = "Two-factor authentication is already enabled.";
constexpr const char* kNotOn = "Two-factor authentication is not enabled.";
constexpr const char* kWrongCode = "The two-factor code is invalid.";

// Thrown inside a transaction to roll it back: the code's step was taken
// meanwhile (a replay or a concurrent use of the same code).
struct StepTaken {};
// Thrown inside confirm's transaction: a concurrent enable replaced the
// pending secret the code was checked against.
struct SecretReplaced {};

}  // namespace

void SetupRoutes::registerOn(rapport::Registry& registry) {
  registry.route("POST", "/auth/2fa/enable", [this](const Request& req) { return enable(req); });
  registry.route("POST", "/auth/2fa/confirm", [this](const Request& req) { return confirm(req); });
  registry.route("DELETE", "/auth/2fa", [this](const Request& req) { return disable(req); });
  registry.route("POST", "/auth/2fa/recovery-codes",
                 [this](const Request& req) { return regenerateRecoveryCodes(req); });
}

UserRecord SetupRoutes::currentUser(const rapport::Request& req) {
  std::optional<UserRecord> user = users::findById(ctx_.db, req.identity.userId);
  if (!user) throw rapport::Error::unauthorized();
  return std::move(*user);
}

rapport::Response SetupRoutes::enable(const rapport::Request& req) {
  const UserRecord user = currentUser(req);
  if (user.twoFactorEnabled) throw rapport::Error::conflict(kAlreadyOn);
  if (user.passwordHash) {
    // Decisions §4's enable takes no body: a sign-in of the last
    // kFreshSignInSeconds is the proof of presence. An older session (a
    // token copied long after its sign-in) must give the password, and a
    // password sent is always checked.
    if (req.bodyObject().contains("password") || !signedInRecently(req)) {
      requirePassword(req, user);
    }
  } else {
    requireFreshSignIn(req);
  }
  const std::string secret = newTotpSecret();
  const std::string sealed = store::sealSecret(secrets_, user.id, secret);
  // False when a confirm won meanwhile: the secret on record is confirmed.
  if (!store::savePending(ctx_.db, user.id, sealed, ctx_.clock())) {
    throw rapport::Error::conflict(kAlreadyOn);
  }
  ctx_.log.info("two-factor enable started user_id=" + user.id);
  return rapport::Response::ok(
      Json::object({{"secret", secret}, {"otpauth_uri", otpauthUri(user.email, secret)}}),
      "Add the secret to your authenticator app, then confirm with a code.");
}

Json SetupRoutes::storeNewRecoveryCodes(Tx& tx, const std::string& userId, std::int64_t now) {
  const std::vector<std::string> codes = newRecoveryCodes();
  std::vector<std::string> hashes;
  Json shown = Json::array();
  for (const std::string& code : codes) {
    hashes.push_back(recoveryCodeHash(userId, *normaliseRecoveryCode(code)));
    shown.push(code);
  }
  store::replaceRecoveryCodes(tx, userId, hashes, now);
  return shown;
}

rapport::Response SetupRoutes::confirm(const rapport::Request& req) {
  Validator v(req.bodyObject());
  const std::optional<std::string> code =
      withoutSpaces(v.string("code", {.required = true, .max = 64}).value);
  v.check();
  const UserRecord user = currentUser(req);
  const std::optional<store::SecretRow> pending = store::findSecret(ctx_.db, user.id);
  if (user.twoFactorEnabled || (pending && pending->confirmed)) {
    throw rapport::Error::conflict(kAlreadyOn);
  }
  if (!pending) {
    throw rapport::Error::conflict(
        "Two-factor authentication has not been started: call POST /auth/2fa/enable first.");
  }
  const std::int64_t now = ctx_.clock();
  const std::optional<std::int64_t> step = matchTotp(
      store::openSecret(secrets_, user.id, pending->sealed), *code, now / kMicrosPerSecond);
  if (!step) throw rapport::Error::invalidField("code", kWrongCode);
  Json codes;
  try {
    ctx_.db.transaction("", [&](Tx& tx) {
      if (!store::advanceStep(tx, user.id, *step, now)) throw StepTaken{};
      // The secret the code was checked against, not one a concurrent
      // enable put in its place.
      if (!store::confirm(tx, user.id, pending->sealed, now)) throw SecretReplaced{};
      store::setEnabledFlag(tx, user.id, true, now);
      codes = storeNewRecoveryCodes(tx, user.id, now);
      // Sessions opened with the password alone end; this one stays.
      ctx_.tokens.revokeAllForUser(tx, user.id, req.identity.tokenId);
    });
  } catch (const StepTaken&) {
    throw rapport::Error::invalidField("code", kWrongCode);
  } catch (const SecretReplaced&) {
    throw rapport::Error::conflict(
        "The pending secret was replaced: add the new one and confirm again.");
  }
  ctx_.tokens.invalidateUser(user.id);
  ctx_.log.info("two-factor enabled user_id=" + user.id);
  return rapport::Response::ok(Json::object({{"recovery_codes", std::move(codes)}}),
                               "Two-factor authentication enabled.");
}

void SetupRoutes::requirePassword(const rapport::Request& req, const UserRecord& user) {
  Validator v(req.bodyObject());
  auto password = v.string("password", {.required = true, .max = 1024, .trim = false});
  v.check();
  const std::string emailLower = rapport::toLower(user.email);
  LoginThrottle::Attempt attempt = ctx_.throttle.begin(emailLower, req.clientAddress);
  if (ctx_.hasher.verify(*password.value, *user.passwordHash)) {
    attempt.succeeded();
    return;
  }
  throw rapport::Error::invalidField("password", "The password is incorrect.");
}

bool SetupRoutes::signedInRecently(const rapport::Request& req) const {
  // Refresh and context switch keep the login's time: only signing in
  // again makes a session fresh.
  const std::optional<std::int64_t> started = ctx_.tokens.sessionStartedAt(req.identity.tokenId);
  return started && ctx_.clock() - *started <= kFreshSignInSeconds * kMicrosPerSecond;
}

void SetupRoutes::requireFreshSignIn(const rapport::Request& req) {
  // Without a password, signing in again needs the social provider.
  if (signedInRecently(req)) return;
  throw rapport::Error::forbidden(
      "Sign in again to turn on two-factor authentication: your sign-in must be less than " +
      std::to_string(kFreshSignInSeconds / 60) + " minutes old.");
}

void SetupRoutes::requireConfirmation(const rapport::Request& req, const UserRecord& user) {
  if (user.passwordHash) {
    requirePassword(req, user);
    return;
  }
  Validator v(req.bodyObject());
  // No password to confirm (social login): a current code or a recovery code.
  const std::optional<std::string> code =
      withoutSpaces(v.string("code", {.required = true, .max = 64}).value);
  v.check();
  const std::int64_t now = ctx_.clock();
  const std::optional<store::SecretRow> secret = store::findSecret(ctx_.db, user.id);
  if (secret && secret->confirmed) {
    const std::optional<std::int64_t> step = matchTotp(
        store::openSecret(secrets_, user.id, secret->sealed), *code, now / kMicrosPerSecond);
    if (step && store::advanceStep(ctx_.db, user.id, *step, now)) return;
  }
  if (const std::optional<std::string> normalised = normaliseRecoveryCode(*code)) {
    if (store::consumeRecoveryCode(ctx_.db, user.id, recoveryCodeHash(user.id, *normalised), now)) {
      return;
    }
  }
  throw rapport::Error::invalidField("code", kWrongCode);
}

rapport::Response SetupRoutes::disable(const rapport::Request& req) {
  const UserRecord user = currentUser(req);
  if (!user.twoFactorEnabled) throw rapport::Error::conflict(kNotOn);
  requireConfirmation(req, user);
  ctx_.db.transaction("", [&](Tx& tx) {
    store::removeAll(tx, user.id);
    store::setEnabledFlag(tx, user.id, false, ctx_.clock());
  });
  ctx_.tokens.invalidateUser(user.id);
  ctx_.log.info("two-factor disabled user_id=" + user.id);
  return rapport::Response::messageOnly("Two-factor authentication disabled.");
}

rapport::Response SetupRoutes::regenerateRecoveryCodes(const rapport::Request& req) {
  const UserRecord user = currentUser(req);
  if (!user.twoFactorEnabled) throw rapport::Error::conflict(kNotOn);
  requireConfirmation(req, user);
  Json codes;
  ctx_.db.transaction("",
                      [&](Tx& tx) { codes = storeNewRecoveryCodes(tx, user.id, ctx_.clock()); });
  ctx_.tokens.invalidateUser(user.id);
  ctx_.log.info("two-factor recovery codes regenerated user_id=" + user.id);
  return rapport::Response::ok(Json::object({{"recovery_codes", std::move(codes)}}),
                               "Recovery codes regenerated.");
}

}  // namespace rapport::host::accounts::twofactor
