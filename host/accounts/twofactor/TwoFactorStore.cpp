#include "accounts/twofactor/TwoFactorStore.h"

namespace rapport::host::accounts::twofactor::store {

namespace {

std::string secretContext(const std::string& userId) {
  return "totp:" + userId;
}

ChallengeRow challengeFromRow(const Row& row) {
  ChallengeRow c;
  c.idHash = row.str("id_hash");
  c.userId = row.str("user_id");
  c.remember = row.flag("remember");
  c.createdAt = row.i64("created_at");
  c.expiresAt = row.i64("expires_at");
  c.failures = row.i64("failures");
  c.resendCodeHash = row.optStr("resend_code_hash");
  c.resendExpiresAt = row.optI64("resend_expires_at");
  c.lastResendAt = row.optI64("last_resend_at");
  c.usedAt = row.optI64("used_at");
  return c;
}

}  // namespace

std::string sealSecret(const rapport::SecretBox& box, const std::string& userId,
                       const std::string& secretBase32) {
  return box.seal(secretBase32, secretContext(userId));
}

std::string openSecret(const rapport::SecretBox& box, const std::string& userId,
                       const std::string& sealed) {
  return box.open(sealed, secretContext(userId));
}

std::optional<SecretRow> findSecret(Queryable& db, const std::string& userId) {
  const Result result = db.query(
      "SELECT secret_sealed, confirmed_at, last_step FROM two_factor_secrets WHERE user_id = ?",
      {userId});
  if (result.empty()) return std::nullopt;
  const Row& row = result.front();
  return SecretRow{row.str("secret_sealed"), !row.isNull("confirmed_at"), row.i64("last_step")};
}

bool savePending(Queryable& db, const std::string& userId, const std::string& sealed,
                 std::int64_t now) {
  return db.exec(
             "INSERT INTO two_factor_secrets (user_id, secret_sealed, confirmed_at, last_step, "
             "created_at, updated_at) VALUES (?, ?, NULL, 0, ?, ?) "
             "ON CONFLICT (user_id) DO UPDATE SET secret_sealed = excluded.secret_sealed, "
             "last_step = 0, created_at = excluded.created_at, updated_at = excluded.updated_at "
             "WHERE two_factor_secrets.confirmed_at IS NULL",
             {userId, sealed, now, now}) == 1;
}

bool confirm(Queryable& db, const std::string& userId, const std::string& sealed,
             std::int64_t now) {
  return db.exec(
             "UPDATE two_factor_secrets SET confirmed_at = ?, updated_at = ? "
             "WHERE user_id = ? AND confirmed_at IS NULL AND secret_sealed = ?",
             {now, now, userId, sealed}) == 1;
}

bool advanceStep(Queryable& db, const std::string& userId, std::int64_t step, std::int64_t now) {
  return db.exec(
             "UPDATE two_factor_secrets SET last_step = ?, updated_at = ? "
             "WHERE user_id = ? AND last_step < ?",
             {step, now, userId, step}) == 1;
}

void removeAll(Queryable& db, const std::string& userId) {
  db.exec("DELETE FROM two_factor_recovery_codes WHERE user_id = ?", {userId});
  db.exec("DELETE FROM two_factor_secrets WHERE user_id = ?", {userId});
}

void setEnabledFlag(Queryable& db, const std::string& userId, bool enabled, std::int64_t now) {
  db.exec("UPDATE users SET two_factor_enabled = ?, updated_at = ? WHERE id = ?",
          {enabled, now, userId});
}

void replaceRecoveryCodes(Queryable& db, const std::string& userId,
                          const std::vector<std::string>& hashes, std::int64_t now) {
  db.exec("DELETE FROM two_factor_recovery_codes WHERE user_id = ?", {userId});
  for (const std::string& hash : hashes) {
    db.exec(
        "INSERT INTO two_factor_recovery_codes (user_id, code_hash, created_at) VALUES (?, ?, ?)",
        {userId, hash, now});
  }
}

bool consumeRecoveryCode(Queryable& db, const std::string& userId, const std::string& hash,
                         std::int64_t now) {
  return db.exec(
             "UPDATE two_factor_recovery_codes SET used_at = ? "
             "WHERE user_id = ? AND code_hash = ? AND used_at IS NULL",
             {now, userId, hash}) == 1;
}

std::int64_t unusedRecoveryCodes(Queryable& db, const std::string& userId) {
  return db
      .query(
          "SELECT COUNT(*) AS n FROM two_factor_recovery_codes WHERE user_id = ? AND used_at IS "
          "NULL",
          {userId})
      .front()
      .i64("n");
}

void insertChallenge(Queryable& db, const ChallengeRow& row) {
  db.exec(
      "INSERT INTO two_factor_challenges (id_hash, user_id, remember, created_at, expires_at, "
      "failures) VALUES (?, ?, ?, ?, ?, 0)",
      {row.idHash, row.userId, row.remember, row.createdAt, row.expiresAt});
}

std::optional<ChallengeRow> findChallenge(Queryable& db, const std::string& idHash) {
  const Result result = db.query(
      "SELECT id_hash, user_id, remember, created_at, expires_at, failures, resend_code_hash, "
      "resend_expires_at, last_resend_at, used_at FROM two_factor_challenges WHERE id_hash = ?",
      {idHash});
  if (result.empty()) return std::nullopt;
  return challengeFromRow(result.front());
}

std::optional<std::int64_t> recordFailure(Queryable& db, const std::string& idHash,
                                          std::int64_t maxFailures) {
  const Result result = db.query(
      "UPDATE two_factor_challenges SET failures = failures + 1 "
      "WHERE id_hash = ? AND used_at IS NULL AND failures < ? RETURNING failures",
      {idHash, maxFailures});
  if (result.empty()) return std::nullopt;
  return result.front().i64("failures");
}

bool markUsed(Queryable& db, const std::string& idHash, std::int64_t now,
              std::int64_t maxFailures) {
  return db.exec(
             "UPDATE two_factor_challenges SET used_at = ? "
             "WHERE id_hash = ? AND used_at IS NULL AND expires_at > ? AND failures < ?",
             {now, idHash, now, maxFailures}) == 1;
}

bool storeResendCode(Queryable& db, const std::string& idHash, const std::string& codeHash,
                     std::int64_t codeExpiresAt, std::int64_t now, std::int64_t notAfter,
                     std::int64_t maxFailures) {
  return db.exec(
             "UPDATE two_factor_challenges SET resend_code_hash = ?, resend_expires_at = ?, "
             "last_resend_at = ? WHERE id_hash = ? AND used_at IS NULL AND expires_at > ? "
             "AND failures < ? AND (last_resend_at IS NULL OR last_resend_at <= ?)",
             {codeHash, codeExpiresAt, now, idHash, now, maxFailures, notAfter}) == 1;
}

FailureCount failuresSince(Queryable& db, const std::string& userId, std::int64_t since) {
  const Row row = db.query(
                        "SELECT COALESCE(SUM(failures), 0) AS n, "
                        "COALESCE(MIN(created_at), 0) AS oldest FROM two_factor_challenges "
                        "WHERE user_id = ? AND created_at > ? AND failures > 0",
                        {userId, since})
                      .front();
  return {row.i64("n"), row.i64("oldest")};
}

std::int64_t purgeChallenges(Queryable& db, std::int64_t before) {
  return db.exec("DELETE FROM two_factor_challenges WHERE expires_at < ?", {before});
}

}  // namespace rapport::host::accounts::twofactor::store
