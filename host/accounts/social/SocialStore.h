// SQL for social login (migrations/<dialect>/0007_social_login.sql).
// Functions take the Queryable to run on. Single use is enforced by the
// database: a state or exchange code is consumed by one conditional UPDATE
// (used_at IS NULL AND not expired) ... RETURNING, so of two concurrent
// callbacks with the same value exactly one gets the row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"

namespace rapport::host::accounts::social {

struct PendingState {
  std::string stateHash;
  std::string provider;
  std::string codeVerifierSealed;
  std::string redirectUri;
  std::int64_t createdAt = 0;
  std::int64_t expiresAt = 0;
  // The client that asked for it (StateBinding.h): SHA-256 hex of the
  // binding cookie's value, and of the client's address key.
  std::string bindingHash;
  std::string clientHash;
};

// Who presents a state at the callback: the hash of the binding cookie it
// sent, or, without the cookie, the hash of its address key.
struct StateClaim {
  std::optional<std::string> bindingHash;
  std::string clientHash;
};

struct SocialIdentity {
  std::string provider;
  std::string subject;
  std::string userId;
};

// A linked identity as its user sees it (GET /user/identities).
struct LinkedIdentity {
  std::string provider;
  std::optional<std::string> email;  // the provider's address at the last login
  std::int64_t createdAt = 0;
  std::int64_t lastLoginAt = 0;
};

namespace store {

void insertState(Queryable& db, const PendingState& state);
// Marks the state used and returns it, when it exists for `provider`, is
// unused, not expired at `now`, and bound to `claim` (the cookie's binding
// when the claim has one, else the client address); nullopt otherwise
// (nothing changes then: a state presented by another client stays usable
// by its own).
std::optional<PendingState> consumeState(Queryable& db, const std::string& stateHash,
                                         const std::string& provider, std::int64_t now,
                                         const StateClaim& claim);

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

// The user's identities, by provider then creation.
std::vector<LinkedIdentity> identitiesOf(Queryable& db, const std::string& userId);
// The distinct providers linked to the user, sorted.
std::vector<std::string> providersOf(Queryable& db, const std::string& userId);
// Unlinks the user's identities of `provider` (empty: of every provider);
// returns how many.
std::int64_t deleteIdentities(Queryable& db, const std::string& userId,
                              const std::string& provider = {});

// Deletes states and exchange codes that expired before `before`; returns how many.
std::int64_t purgeExpired(Queryable& db, std::int64_t before);

}  // namespace store
}  // namespace rapport::host::accounts::social
