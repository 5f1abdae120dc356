#include "accounts/reset/PasswordReset.h"

#include "accounts/reset/MailedReset.h"
#include "accounts/reset/ResetIdentities.h"
#include "accounts/reset/ResetMail.h"
#include "accounts/reset/ResetTokenStore.h"
#include "rapport/ids.h"

namespace rapport::host::accounts::reset {

namespace {

constexpr std::size_t kTokenBytes = 32;  // 256 bits
// Expired tokens are kept a day (what was asked, when), then deleted.
constexpr std::int64_t kPurgeAfterSeconds = 24 * 3600;

}  // namespace

PasswordReset::PasswordReset(AccountsContext& context, ResetOptions options)
    : ctx_(context), options_(std::move(options)) {}

bool PasswordReset::request(const std::string& emailLower) {
  {
    std::lock_guard lock(mutex_);
    if (queue_.size() < kQueueCapacity) {
      queue_.push_back(emailLower);
      return true;
    }
  }
  // Never the address: a full queue under a flood would fill the log with them.
  ctx_.log.error("password reset queue full: request dropped");
  return false;
}

std::optional<std::string> PasswordReset::nextQueued() {
  std::lock_guard lock(mutex_);
  if (queue_.empty()) return std::nullopt;
  std::string next = std::move(queue_.front());
  queue_.pop_front();
  return next;
}

std::size_t PasswordReset::queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

std::size_t PasswordReset::processQueued() {
  std::size_t taken = 0;
  while (std::optional<std::string> emailLower = nextQueued()) {
    ++taken;
    try {
      sendReset(*emailLower);
    } catch (const std::exception& e) {
      // One failure (database busy, a mailer refusing the address) must not
      // stop the others; the user can ask again.
      ctx_.log.error(std::string("password reset request failed: ") + e.what());
    }
  }
  return taken;
}

bool PasswordReset::sendReset(const std::string& emailLower) {
  const std::optional<UserRecord> user = users::findByEmail(ctx_.db, emailLower);
  if (!user) return false;
  if (user->disabled) {
    ctx_.log.info("password reset not sent: account disabled user_id=" + user->id);
    return false;
  }
  const std::int64_t now = ctx_.clock();
  const std::string token = rapport::randomToken(kTokenBytes);
  bool issued = false;
  ctx_.db.transaction("", [&](Tx& tx) {
    issued = false;
    // Pacing per user, checked in the transaction that writes, so two
    // workers or instances cannot both pass it.
    const std::optional<std::int64_t> latest = tokens::latestCreatedAt(tx, user->id);
    if (latest && options_.minInterval > 0 &&
        now - *latest < options_.minInterval * kMicrosPerSecond) {
      return;
    }
    ResetTokenRow row;
    row.id = rapport::newId("pwr_");
    row.tokenHash = rapport::sha256Hex(token);
    row.userId = user->id;
    row.emailLower = emailLower;
    row.createdAt = now;
    row.expiresAt = now + options_.tokenTtl * kMicrosPerSecond;
    tokens::deleteForUser(tx, user->id);
    tokens::insert(tx, row);
    // The token and its mail are one write: a crash cannot keep one alone.
    mail::Letter letter = resetLetter(user->email, token, options_.tokenTtl, options_.resetUrl);
    mentionLinkedProviders(letter, linkedProviders(tx, user->id));
    ctx_.mailer.send(tx, mail::compose(letter));
    issued = true;
  });
  if (!issued) {
    ctx_.log.info("password reset not sent: one was sent recently user_id=" + user->id);
    return false;
  }
  ctx_.log.info("password reset mail queued user_id=" + user->id);
  return true;
}

bool PasswordReset::usable(const std::string& token, const std::string& emailLower) {
  return tokens::findUsable(ctx_.db, rapport::sha256Hex(token), emailLower, ctx_.clock())
      .has_value();
}

bool PasswordReset::reset(const std::string& token, const std::string& emailLower,
                          const std::string& passwordHash, std::string& userId,
                          bool removeIdentities) {
  bool done = false;
  ctx_.db.transaction("", [&](Tx& tx) {
    done = false;
    const std::int64_t now = ctx_.clock();
    const std::optional<tokens::Claimed> claimed =
        tokens::claim(tx, rapport::sha256Hex(token), emailLower, now);
    if (!claimed) return;
    users::updatePasswordHash(tx, claimed->userId, passwordHash, now);
    // For a day the e-mailed two-factor code is refused (MailedReset.h).
    recordMailedReset(tx, claimed->userId, now);
    tokens::deleteForUser(tx, claimed->userId, claimed->id);
    // Whoever holds a session (perhaps the reason for the reset) is out.
    ctx_.tokens.revokeAllForUser(tx, claimed->userId);
    afterResetByEmail(tx, claimed->userId, emailLower, removeIdentities, now);
    userId = claimed->userId;
    done = true;
  });
  return done;
}

std::int64_t PasswordReset::purgeExpired() {
  return tokens::purgeExpired(ctx_.db, ctx_.clock() - kPurgeAfterSeconds * kMicrosPerSecond);
}

}  // namespace rapport::host::accounts::reset
