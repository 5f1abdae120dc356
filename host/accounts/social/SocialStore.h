// SQL for social login (migrations/<dialect>/0007_social_login.sql).
// Functions take the Queryable to run on. Single use is enforced by the
// database: a state or exchange code is consumed by one conditional UPDATE
// (used_at IS NULL AND not expired) ... RETURNING, so of two concurrent
// callbacks with the same value exactly one gets the row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rapport/db.h"

namespace rapport::host::accounts::social {

struct PendingState {
  std::string stateHash;
  std::string provider;
  std::string codeVerifierSealed;
  std::string redirectUri;
  std::int64_t createdAt = 0;
  std::int64_t expiresAt = 0;
};

struct SocialIdentity {
  std::string provider;
  std::string subject;
  std::string userId;
};

namespace store {

void insertState(Queryable& db, const PendingState& state);
// Marks the state used and returns it, when it exists for `provider`, is
// unused and not expired at `now`; nullopt otherwise (nothing changes then).
std::optional<PendingState> consumeState(Queryable& db, const std::string& stateHash,
                                         const std::string& provider, std::int64_t now);

void insertExchangeCode(Queryable& db, const std::string& codeHash, const std::string& provider,
                        const std::string& userId, std::int64_t now, std::int64_t expiresAt);
// The user the code was issued for, marking it used; nullopt when unknown,
// used or expired.
std::optional<std::string> consumeExchangeCode(Queryable& db, const std::string& codeHash,
                                               std::int64_t now);

std::optional<SocialIdentity> findIdentity(Queryable& db, const std::string& provider,
                                           const std::string& subject);
// Throws DbError (UniqueViolation) when the identity was linked meanwhile.
void insertIdentity(Queryable& db, const SocialIdentity& identity,
                    const std::optional<std::string>& email, std::int64_t now);
void touchIdentity(Queryable& db, const SocialIdentity& identity,
                   const std::optional<std::string>& email, std::int64_t now);

// Deletes states and exchange codes that expired before `before`; returns how many.
std::int64_t purgeExpired(Queryable& db, std::int64_t before);

}  // namespace store
}  // namespace rapport::host::accounts::social
