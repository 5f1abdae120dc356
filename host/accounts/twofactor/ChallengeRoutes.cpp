#include "accounts/twofactor/ChallengeRoutes.h"

#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "accounts/CompanyStore.h"
#include "accounts/TokenJson.h"
#include "accounts/reset/MailedReset.h"
#include "accounts/twofactor/CodeText.h"
#include "accounts/twofactor/RecoveryCodes.h"
#include "accounts/twofactor/Totp.h"
#include "accounts/twofactor/TwoFactorStore.h"
#include "mail/Letter.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/time.h"
#include "rapport/validation.h"

namespace rapport::host::accounts::twofactor {

namespace {

constexpr std::string_view kChallengePrefix = "tfa_";
constexpr std::size_t kChallengeBytes = 32;       // 256 bits
constexpr std::size_t kChallengeLength = 4 + 43;  // prefix + base64url of 32 bytes
constexpr std::size_t kMaxCodeLength = 64;        // longer is no code of ours

constexpr const char* kNotFound = "Two-factor challenge not found or expired.";
constexpr const char* kWrongCode = "The two-factor code is invalid.";
constexpr const char* kWrongRecoveryCode = "The recovery code is invalid.";
constexpr const char* kChallengeEnded =
    "Too many wrong codes: this sign-in has ended. Please log in again.";

bool looksLikeChallenge(const std::string& id) {
  return id.size() == kChallengeLength &&
         id.compare(0, kChallengePrefix.size(), kChallengePrefix) == 0;
}

// Whole seconds from `now` until `later`, rounded up (Retry-After).
long secondsUntil(std::int64_t later, std::int64_t now) {
  const std::int64_t micros = later - now;
  return static_cast<long>((micros + kMicrosPerSecond - 1) / kMicrosPerSecond);
}

// The e-mailed code is stored hashed with the challenge id, which the
// database does not hold: a leaked row does not give the code away.
std::string mailedCodeHash(const std::string& challengeId, const std::string& code) {
  return rapport::sha256Hex("resend:" + challengeId + ":" + code);
}

rapport::Error challengeEnded(const store::ChallengeRow& row, std::int64_t now) {
  return rapport::Error::tooManyRequests(secondsUntil(row.expiresAt, now), kChallengeEnded);
}

// 404 for an unknown, used or expired challenge; 429 for one ended by
// wrong codes (until it would have expired).
const store::ChallengeRow& requireOpen(const std::optional<store::ChallengeRow>& row,
                                       std::int64_t now) {
  if (!row || row->usedAt || now >= row->expiresAt) throw rapport::Error::notFound(kNotFound);
  if (row->failures >= kMaxChallengeFailures) throw challengeEnded(*row, now);
  return *row;
}

// The code fields every variant shares: `code`, or `recovery_code` where
// the variant has one; neither is a 422 on `code`.
void readCodes(Validator& v, ChallengeAnswer& answer, bool recoveryAllowed) {
  const StringRule rule{.required = false, .max = kMaxCodeLength};
  answer.code = withoutSpaces(v.string("code", rule).value);
  if (recoveryAllowed && !answer.code) answer.recoveryCode = v.string("recovery_code", rule).value;
  if (!answer.code && !answer.recoveryCode) {
    v.fail("code", recoveryAllowed ? "The code field is required when recovery_code is not present."
                                   : "The code field is required.");
  }
}

// Thrown inside the success transaction to roll it back: the TOTP step was
// taken meanwhile (a replay) or the recovery code was used.
struct CodeRefused {};

}  // namespace

ChallengeRoutes::ChallengeRoutes(AccountsContext& context, const rapport::SecretBox& secrets,
                                 TwoFactorOptions options)
    : ctx_(context), secrets_(secrets), options_(options) {}

void ChallengeRoutes::registerOn(rapport::Registry& registry) {
  const RouteOptions publicRoute{.access = Access::Public, .roles = {}};
  registry.route(
      "POST", "/auth/two-factor/challenge",
      [this](const Request& req) { return complete(readChallenge(req)); }, publicRoute);
  registry.route(
      "POST", "/auth/two-factor/verify",
      [this](const Request& req) { return complete(readVerify(req)); }, publicRoute);
  registry.route(
      "POST", "/auth/2fa/challenge",
      [this](const Request& req) { return complete(readTwoFa(req)); }, publicRoute);
  registry.route(
      "POST", "/auth/two-factor/resend", [this](const Request& req) { return resend(req); },
      publicRoute);
}

rapport::Response ChallengeRoutes::start(const UserRecord& user, bool remember) {
  const std::int64_t now = ctx_.clock();
  const std::int64_t window = kUserFailureWindowSeconds * kMicrosPerSecond;
  const store::FailureCount recent = store::failuresSince(ctx_.db, user.id, now - window);
  if (recent.total >= kUserFailureBudget) {
    ctx_.log.warn("two-factor login refused: too many wrong codes user_id=" + user.id);
    throw rapport::Error::tooManyRequests(
        secondsUntil(recent.oldestCreatedAt + window, now),
        "Too many wrong two-factor codes for this account. Please try again later.");
  }
  const std::string challengeId =
      std::string(kChallengePrefix) + rapport::randomToken(kChallengeBytes);
  store::ChallengeRow row;
  row.idHash = rapport::sha256Hex(challengeId);
  row.userId = user.id;
  row.remember = remember;
  row.createdAt = now;
  row.expiresAt = now + options_.challengeTtl * kMicrosPerSecond;
  store::insertChallenge(ctx_.db, row);
  ctx_.log.info("two-factor challenge started user_id=" + user.id);
  rapport::Response response =
      rapport::Response::ok(Json::object({{"two_factor_required", true},
                                          {"pending_2fa", true},
                                          {"challenge_id", challengeId},
                                          {"two_factor_token", challengeId}}),
                            "Two-factor authentication required.");
  response.status = options_.loginStatus;
  return response;
}

ChallengeAnswer ChallengeRoutes::readChallenge(const rapport::Request& req) {
  Validator v(req.bodyObject());
  ChallengeAnswer answer;
  answer.clientAddress = req.clientAddress;
  auto id = v.string("challenge_id", {.required = true, .max = 255});
  readCodes(v, answer, true);
  v.check();
  answer.challengeId = *id.value;
  return answer;
}

ChallengeAnswer ChallengeRoutes::readVerify(const rapport::Request& req) {
  Validator v(req.bodyObject());
  ChallengeAnswer answer;
  answer.clientAddress = req.clientAddress;
  auto token = v.string("two_factor_token", {.required = true, .max = 255});
  readCodes(v, answer, false);
  v.check();
  answer.challengeId = *token.value;
  return answer;
}

ChallengeAnswer ChallengeRoutes::readTwoFa(const rapport::Request& req) {
  Validator v(req.bodyObject());
  ChallengeAnswer answer;
  answer.clientAddress = req.clientAddress;
  auto token = v.string("two_factor_token", {.required = false, .max = 255});
  auto id = v.string("challenge_id", {.required = false, .max = 255});
  if (!token.value && !id.value) {
    v.fail("two_factor_token",
           "The two_factor_token field is required when challenge_id is not present.");
  }
  readCodes(v, answer, true);
  v.check();
  answer.challengeId = token.value ? *token.value : *id.value;
  return answer;
}

rapport::Response ChallengeRoutes::complete(const ChallengeAnswer& answer) {
  const std::int64_t now = ctx_.clock();
  if (!looksLikeChallenge(answer.challengeId)) throw rapport::Error::notFound(kNotFound);
  const std::string idHash = rapport::sha256Hex(answer.challengeId);
  const std::optional<store::ChallengeRow> found = store::findChallenge(ctx_.db, idHash);
  const store::ChallengeRow& challenge = requireOpen(found, now);
  const std::optional<UserRecord> user = users::findById(ctx_.db, challenge.userId);
  if (!user) throw rapport::Error::notFound(kNotFound);
  if (user->disabled) throw rapport::Error::forbidden("This account has been disabled.");

  // What the code is, decided before the transaction; the transaction then
  // claims it (step, recovery code) together with the challenge.
  std::optional<std::int64_t> step;
  std::string recoveryHash;
  bool matched = false;
  bool mailed = false;  // the e-mailed code matched (not a TOTP code)
  if (answer.code) {
    const std::optional<store::SecretRow> secret = store::findSecret(ctx_.db, user->id);
    if (secret && secret->confirmed) {
      step = matchTotp(store::openSecret(secrets_, user->id, secret->sealed), *answer.code,
                       now / kMicrosPerSecond);
    }
    matched = step.has_value();
    if (!matched && challenge.resendCodeHash && challenge.resendExpiresAt &&
        now < *challenge.resendExpiresAt && isSixDigits(*answer.code)) {
      mailed = rapport::constantTimeEquals(mailedCodeHash(answer.challengeId, *answer.code),
                                           *challenge.resendCodeHash);
      matched = mailed;
    }
    // Whoever read the reset mail can read this code too. The challenge
    // began after the reset (its login needed the new password), so the
    // reset is on record by now.
    if (mailed && reset::resetByMailRecently(ctx_.db, user->id, now)) {
      ctx_.log.info("two-factor e-mailed code refused after a reset by e-mail user_id=" + user->id);
      throw rapport::Error::invalidField("code", kMailboxOnly);
    }
  } else if (answer.recoveryCode) {
    if (auto normalised = normaliseRecoveryCode(*answer.recoveryCode)) {
      recoveryHash = recoveryCodeHash(user->id, *normalised);
      matched = true;  // claimed (or refused) in the transaction
    }
  }
  const std::string field = answer.code ? "code" : "recovery_code";

  std::optional<IssuedToken> issued;
  std::string companyId;
  bool claimed = false;
  if (matched) {
    try {
      ctx_.db.transaction("", [&](Tx& tx) {
        issued.reset();
        claimed = store::markUsed(tx, idHash, now, kMaxChallengeFailures);
        if (!claimed) return;
        if (step && !store::advanceStep(tx, user->id, *step, now)) throw CodeRefused{};
        if (!recoveryHash.empty() && !store::consumeRecoveryCode(tx, user->id, recoveryHash, now)) {
          throw CodeRefused{};
        }
        const std::optional<std::string> company = companies::firstCompanyOf(tx, user->id);
        if (!company)
          throw rapport::Error::forbidden("This account does not belong to any company.");
        companyId = *company;
        issued = ctx_.tokens.issue(tx, user->id, companyId, challenge.remember);
      });
    } catch (const CodeRefused&) {
      matched = false;
    }
    // Another request completed or ended the challenge first.
    if (matched && !claimed) requireOpen(store::findChallenge(ctx_.db, idHash), now);
  }
  if (!matched) {
    const std::optional<std::int64_t> failures =
        store::recordFailure(ctx_.db, idHash, kMaxChallengeFailures);
    if (!failures) {
      requireOpen(store::findChallenge(ctx_.db, idHash), now);
      throw rapport::Error::notFound(kNotFound);
    }
    ctx_.log.info("two-factor code refused user_id=" + user->id +
                  " failures=" + std::to_string(*failures));
    if (*failures >= kMaxChallengeFailures) throw challengeEnded(challenge, now);
    throw rapport::Error::invalidField(field, answer.code ? kWrongCode : kWrongRecoveryCode);
  }
  if (!issued) throw rapport::Error::notFound(kNotFound);
  ctx_.log.info("two-factor login user_id=" + user->id +
                (recoveryHash.empty() ? std::string() : std::string(" with a recovery code")) +
                (mailed ? std::string(" with an e-mailed code") : std::string()));
  if (mailed) mailSignInNotice(*user, answer.clientAddress, now);
  Json data = tokenJson(*issued);
  data.set("user", users::tokenUserJson(*user, companyId));
  return rapport::Response::ok(std::move(data), "Logged in.");
}

rapport::Response ChallengeRoutes::resend(const rapport::Request& req) {
  Validator v(req.bodyObject());
  auto token = v.string("two_factor_token", {.required = true, .max = 255});
  v.check();
  const std::string& challengeId = *token.value;
  const std::int64_t now = ctx_.clock();
  if (!looksLikeChallenge(challengeId)) throw rapport::Error::notFound(kNotFound);
  const std::string idHash = rapport::sha256Hex(challengeId);
  const std::int64_t interval = kResendIntervalSeconds * kMicrosPerSecond;
  auto tooSoon = [&](std::int64_t last) {
    return rapport::Error::tooManyRequests(secondsUntil(last + interval, now),
                                           "Please wait before requesting another code.");
  };
  const std::optional<store::ChallengeRow> found = store::findChallenge(ctx_.db, idHash);
  const store::ChallengeRow& challenge = requireOpen(found, now);
  if (challenge.lastResendAt && now - *challenge.lastResendAt < interval) {
    throw tooSoon(*challenge.lastResendAt);
  }
  const std::optional<UserRecord> user = users::findById(ctx_.db, challenge.userId);
  if (!user) throw rapport::Error::notFound(kNotFound);
  if (user->disabled) throw rapport::Error::forbidden("This account has been disabled.");
  const std::string code = randomCode("0123456789", 6);
  if (!store::storeResendCode(ctx_.db, idHash, mailedCodeHash(challengeId, code),
                              now + kResendCodeTtlSeconds * kMicrosPerSecond, now, now - interval,
                              kMaxChallengeFailures)) {
    // A concurrent resend won, or the challenge closed meanwhile.
    const std::optional<store::ChallengeRow> again = store::findChallenge(ctx_.db, idHash);
    const store::ChallengeRow& current = requireOpen(again, now);
    throw tooSoon(current.lastResendAt.value_or(now));
  }
  mail::Letter letter;
  letter.to = user->email;
  letter.purpose = "two-factor-code";
  letter.subject = "Your sign-in code";
  letter.heading = "Your sign-in code";
  letter.paragraphs = {"Hello " + user->name + ",",
                       "Enter this code to finish signing in. It works once, for 10 minutes."};
  letter.code = code;
  letter.closing = {"If you did not try to sign in, someone knows your password: change it now."};
  ctx_.mailer.send(mail::compose(letter));
  ctx_.log.info("two-factor code e-mailed user_id=" + user->id);
  return rapport::Response::messageOnly(
      "A verification code has been sent to your e-mail address.");
}

void ChallengeRoutes::mailSignInNotice(const UserRecord& user, const std::string& clientAddress,
                                       std::int64_t now) {
  mail::Letter letter;
  letter.to = user.email;
  letter.purpose = "two-factor-notice";
  letter.subject = "New sign-in with an e-mailed code";
  letter.heading = "New sign-in with an e-mailed code";
  letter.paragraphs = {"Hello " + user.name + ",",
                       "Your account was signed in to at " + rapport::isoTimestamp(now) + " from " +
                           clientAddress +
                           " with a code sent to this address instead of your authenticator app."};
  letter.closing = {
      "If this was not you, someone knows your password and can read your e-mail: secure your "
      "e-mail account, then change your password and sign in with your authenticator app."};
  try {
    ctx_.mailer.send(mail::compose(letter));
  } catch (const std::exception& e) {
    // The token is issued (committed): the sign-in stands, the notice is lost.
    ctx_.log.error("two-factor sign-in notice not queued user_id=" + user.id + ": " + e.what());
  }
}

std::int64_t ChallengeRoutes::purge(std::int64_t olderThanSeconds) {
  return store::purgeChallenges(ctx_.db, ctx_.clock() - olderThanSeconds * kMicrosPerSecond);
}

}  // namespace rapport::host::accounts::twofactor
