#include "accounts/reset/ResetTokenStore.h"

namespace rapport::host::accounts::reset::tokens {

void insert(Queryable& db, const ResetTokenRow& row) {
  db.exec(
      "INSERT INTO password_resets (id, token_hash, user_id, email_lower, created_at, expires_at) "
      "VALUES (?, ?, ?, ?, ?, ?)",
      {row.id, row.tokenHash, row.userId, row.emailLower, row.createdAt, row.expiresAt});
}

std::optional<std::string> findUsable(Queryable& db, const std::string& tokenHash,
                                      const std::string& emailLower, std::int64_t now) {
  const Result result = db.query(
      "SELECT r.user_id FROM password_resets r JOIN users u ON u.id = r.user_id "
      "WHERE r.token_hash = ? AND r.email_lower = ? AND r.used_at IS NULL AND r.expires_at > ? "
      "AND u.email_lower = r.email_lower AND u.disabled = ?",
      {tokenHash, emailLower, now, false});
  if (result.empty()) return std::nullopt;
  return result.front().str("user_id");
}

std::optional<Claimed> claim(Queryable& db, const std::string& tokenHash,
                             const std::string& emailLower, std::int64_t now) {
  // The user's conditions (same address, not disabled) are in the subquery
  // so the claim and the check are one statement.
  const Result result = db.query(
      "UPDATE password_resets SET used_at = ? "
      "WHERE token_hash = ? AND email_lower = ? AND used_at IS NULL AND expires_at > ? "
      "AND user_id IN (SELECT id FROM users WHERE email_lower = ? AND disabled = ?) "
      "RETURNING id, user_id",
      {now, tokenHash, emailLower, now, emailLower, false});
  if (result.empty()) return std::nullopt;
  return Claimed{result.front().str("id"), result.front().str("user_id")};
}

std::int64_t deleteForUser(Queryable& db, const std::string& userId, const std::string& keepId) {
  return db.exec("DELETE FROM password_resets WHERE user_id = ? AND id <> ?", {userId, keepId});
}

std::optional<std::int64_t> latestCreatedAt(Queryable& db, const std::string& userId) {
  const Result result =
      db.query("SELECT MAX(created_at) AS latest FROM password_resets WHERE user_id = ?", {userId});
  if (result.empty()) return std::nullopt;
  return result.front().optI64("latest");
}

std::int64_t purgeExpired(Queryable& db, std::int64_t cutoff) {
  return db.exec("DELETE FROM password_resets WHERE expires_at < ? OR used_at < ?",
                 {cutoff, cutoff});
}

}  // namespace rapport::host::accounts::reset::tokens
