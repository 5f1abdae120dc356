#include "accounts/social/SocialStore.h"

namespace rapport::host::accounts::social::store {

void insertState(Queryable& db, const PendingState& state) {
  db.exec(
      "INSERT INTO social_states (state_hash, provider, code_verifier_sealed, redirect_uri, "
      "created_at, expires_at, binding_hash, client_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      {state.stateHash, state.provider, state.codeVerifierSealed, state.redirectUri,
       state.createdAt, state.expiresAt, state.bindingHash, state.clientHash});
}

std::optional<PendingState> consumeState(Queryable& db, const std::string& stateHash,
                                         const std::string& provider, std::int64_t now,
                                         const StateClaim& claim) {
  // The binding is part of the one conditional UPDATE: a state is spent
  // only by the client it was issued to.
  const bool byCookie = claim.bindingHash.has_value();
  const Result result = db.query(
      std::string("UPDATE social_states SET used_at = ? WHERE state_hash = ? AND provider = ? AND "
                  "used_at IS NULL AND expires_at > ? AND ") +
          (byCookie ? "binding_hash = ?" : "client_hash = ?") +
          " RETURNING state_hash, provider, code_verifier_sealed, redirect_uri, created_at, "
          "expires_at, binding_hash, client_hash",
      {now, stateHash, provider, now, byCookie ? *claim.bindingHash : claim.clientHash});
  if (result.empty()) return std::nullopt;
  const Row& row = result.front();
  return PendingState{row.str("state_hash"),           row.str("provider"),
                      row.str("code_verifier_sealed"), row.str("redirect_uri"),
                      row.i64("created_at"),           row.i64("expires_at"),
                      row.str("binding_hash"),         row.str("client_hash")};
}

void insertExchangeCode(Queryable& db, const std::string& codeHash, const std::string& provider,
                        const std::string& userId, std::int64_t now, std::int64_t expiresAt) {
  db.exec(
      "INSERT INTO social_exchange_codes (code_hash, provider, user_id, created_at, expires_at) "
      "VALUES (?, ?, ?, ?, ?)",
      {codeHash, provider, userId, now, expiresAt});
}

std::optional<std::string> consumeExchangeCode(Queryable& db, const std::string& codeHash,
                                               std::int64_t now) {
  const Result result = db.query(
      "UPDATE social_exchange_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL AND "
      "expires_at > ? RETURNING user_id",
      {now, codeHash, now});
  if (result.empty()) return std::nullopt;
  return result.front().str("user_id");
}

std::optional<SocialIdentity> findIdentity(Queryable& db, const std::string& provider,
                                           const std::string& subject) {
  const Result result = db.query(
      "SELECT provider, subject, user_id FROM social_identities WHERE provider = ? AND subject = ?",
      {provider, subject});
  if (result.empty()) return std::nullopt;
  const Row& row = result.front();
  return SocialIdentity{row.str("provider"), row.str("subject"), row.str("user_id")};
}

void insertIdentity(Queryable& db, const SocialIdentity& identity,
                    const std::optional<std::string>& email, std::int64_t now) {
  db.exec(
      "INSERT INTO social_identities (provider, subject, user_id, email, created_at, "
      "last_login_at) VALUES (?, ?, ?, ?, ?, ?)",
      {identity.provider, identity.subject, identity.userId, email, now, now});
}

void touchIdentity(Queryable& db, const SocialIdentity& identity,
                   const std::optional<std::string>& email, std::int64_t now) {
  db.exec(
      "UPDATE social_identities SET email = ?, last_login_at = ? WHERE provider = ? AND "
      "subject = ?",
      {email, now, identity.provider, identity.subject});
}

std::vector<LinkedIdentity> identitiesOf(Queryable& db, const std::string& userId) {
  const Result result = db.query(
      "SELECT provider, email, created_at, last_login_at FROM social_identities WHERE user_id = ? "
      "ORDER BY provider, created_at",
      {userId});
  std::vector<LinkedIdentity> identities;
  for (const Row& row : result) {
    identities.push_back(LinkedIdentity{row.str("provider"), row.optStr("email"),
                                        row.i64("created_at"), row.i64("last_login_at")});
  }
  return identities;
}

std::vector<std::string> providersOf(Queryable& db, const std::string& userId) {
  const Result result = db.query(
      "SELECT DISTINCT provider FROM social_identities WHERE user_id = ? ORDER BY provider",
      {userId});
  std::vector<std::string> providers;
  for (const Row& row : result) providers.push_back(row.str("provider"));
  return providers;
}

std::int64_t deleteIdentities(Queryable& db, const std::string& userId,
                              const std::string& provider) {
  if (provider.empty()) return db.exec("DELETE FROM social_identities WHERE user_id = ?", {userId});
  return db.exec("DELETE FROM social_identities WHERE user_id = ? AND provider = ?",
                 {userId, provider});
}

std::int64_t purgeExpired(Queryable& db, std::int64_t before) {
  return db.exec("DELETE FROM social_states WHERE expires_at < ?", {before}) +
         db.exec("DELETE FROM social_exchange_codes WHERE expires_at < ?", {before});
}

}  // namespace rapport::host::accounts::social::store
