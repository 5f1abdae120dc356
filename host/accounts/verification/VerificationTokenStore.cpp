#include "accounts/verification/VerificationTokenStore.h"

namespace rapport::host::accounts::verification::tokens {

void insert(Queryable& db, const VerificationRow& row) {
  db.exec(
      "INSERT INTO email_verifications (id, token_hash, user_id, email_lower, created_at, "
      "expires_at) VALUES (?, ?, ?, ?, ?, ?)",
      {row.id, row.tokenHash, row.userId, row.emailLower, row.createdAt, row.expiresAt});
}

std::optional<Claimed> claim(Queryable& db, const std::string& tokenHash, std::int64_t now) {
  // The user's condition (same address) is in the subquery so the claim and
  // the check are one statement.
  const Result result = db.query(
      "UPDATE email_verifications SET used_at = ? "
      "WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? "
      "AND EXISTS (SELECT 1 FROM users u WHERE u.id = email_verifications.user_id "
      "AND u.email_lower = email_verifications.email_lower) "
      "RETURNING id, user_id, email_lower",
      {now, tokenHash, now});
  if (result.empty()) return std::nullopt;
  const Row& row = result.front();
  return Claimed{row.str("id"), row.str("user_id"), row.str("email_lower")};
}

std::int64_t deleteForUser(Queryable& db, const std::string& userId, const std::string& keepId) {
  return db.exec("DELETE FROM email_verifications WHERE user_id = ? AND id <> ?", {userId, keepId});
}

std::int64_t purgeExpired(Queryable& db, std::int64_t cutoff) {
  return db.exec("DELETE FROM email_verifications WHERE expires_at < ? OR used_at < ?",
                 {cutoff, cutoff});
}

}  // namespace rapport::host::accounts::verification::tokens
