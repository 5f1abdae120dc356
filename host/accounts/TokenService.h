// Bearer tokens (decisions §3): issue, authenticate, refresh, revoke.
//
// A token is "rpt_" + 32 random bytes (base64url): 256 bits, opaque. Only its
// SHA-256 hex is stored (tokens.token_hash), so a database leak yields no
// usable token. A token resolves exactly one (user, company) pair; its role
// is read from the membership at validation time.
//
// Caching and revocation: authenticate() keeps the resolved identity (user,
// company, role: the join of tokens, memberships and users, with the user's
// public fields for GET /auth/me) in an in-memory
// cache and re-reads it once the entry is older than cacheTtlSeconds
// (auth.token_cache_ttl, default 10). What a hit costs depends on the engine:
//
//   PostgreSQL (several rapportd may share the database): every hit still
//   confirms the token is live with ONE primary-key lookup (tokens.id, not
//   revoked, not expired). Revocation is therefore exact across instances:
//   logout, password change, refresh-grace end and member removal (which
//   revokes the member's tokens for that company) take effect on the next
//   request everywhere. Only the cached role and the user's disabled flag
//   may lag on another instance, by at most cacheTtlSeconds.
//
//   SQLite (one rapportd per database file: SQLite is an embedded database,
//   and the supported deployment is a single process): a hit costs nothing.
//   Changes made through this instance (revoke, refresh, revokeAllForUser,
//   revokeMembership, invalidateUser) take effect here at once; a change made
//   behind its back (another process, or SQL by hand) is seen within
//   cacheTtlSeconds. Set it to 0 to always read the database.
//
// Threading: every member is thread-safe. The Database must outlive this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "accounts/Clock.h"
#include "accounts/TokenCache.h"
#include "http/Authenticator.h"
#include "rapport/db.h"
#include "rapport/http.h"

namespace rapport::host::accounts {

struct TokenOptions {
  std::int64_t tokenTtl = 3600;        // seconds (auth.token_ttl)
  std::int64_t rememberTtl = 2592000;  // seconds with remember_me (auth.remember_ttl)
  std::int64_t cacheTtlSeconds = 10;   // re-validation age (auth.token_cache_ttl)
  std::size_t cacheCapacity = 100000;  // entries (auth.token_cache_size)
  std::int64_t refreshGrace = 60;      // seconds an old token lives on (auth.refresh_grace)
};

struct IssuedToken {
  std::string token;  // the bearer token: hand it to the client, never log or store it
  std::string tokenId;
  std::int64_t expiresAt = 0;  // micros since the epoch
  std::int64_t expiresIn = 0;  // seconds
  bool remember = false;       // lifetime class
};

class TokenService : public Authenticator {
 public:
  TokenService(rapport::Database& db, TokenOptions options = {}, Clock clock = systemClock());

  // A new token for a member of `companyId`. The Queryable overload writes in
  // the caller's transaction (register: user, company and token in one commit).
  IssuedToken issue(const std::string& userId, const std::string& companyId, bool remember);
  IssuedToken issue(Queryable& db, const std::string& userId, const std::string& companyId,
                    bool remember);

  // Authenticator: nullopt for a malformed, unknown, expired or revoked
  // token, a disabled user, or a user no longer member of the token's company.
  std::optional<Identity> authenticate(const std::string& bearerToken) override;

  // A new token of the same lifetime class for the same user and company;
  // the current one then expires within refreshGrace seconds (never later
  // than it would have). nullopt when the current token is expired or revoked.
  std::optional<IssuedToken> refresh(const Identity& current);

  // A new token for `companyId` in the lifetime class of the current token
  // (context switch). The caller checks the membership first. The current
  // token is left as it is. nullopt when it is expired or revoked.
  std::optional<IssuedToken> issueForCompany(const Identity& current, const std::string& companyId);

  // Revokes one token at once (logout). False when no such token exists.
  bool revoke(const std::string& tokenId);

  // Revokes every live token of the user except `keepTokenId` (password
  // change keeps the caller's own). The Tx overload revokes in the caller's
  // transaction and drops the cache entries after it commits.
  void revokeAllForUser(const std::string& userId, const std::string& keepTokenId = {});
  void revokeAllForUser(Tx& tx, const std::string& userId, const std::string& keepTokenId = {});

  // Revokes the user's live tokens for one company in the caller's
  // transaction (member removed) and, once it commits, forgets the user's
  // cached identities. The revocation is what other instances see.
  void revokeMembership(Tx& tx, const std::string& userId, const std::string& companyId);

  // Forgets cached identities of the user so the next request re-reads the
  // database (membership removed or role changed, user disabled, and any
  // change of the fields of UserSummary: profile, two-factor).
  void invalidateUser(const std::string& userId);

  // The user's public fields cached with `bearerToken` (read with its
  // identity, so at most cacheTtlSeconds old here and fresh after this
  // instance's invalidateUser; another instance's profile change shows within
  // cacheTtlSeconds). nullopt when the token is not cached: read the users
  // table then. Call after authenticate() accepted the token.
  std::optional<UserSummary> cachedUser(const std::string& bearerToken) const;

  // Deletes tokens that expired more than `olderThanSeconds` ago; returns how many.
  std::int64_t purgeExpired(std::int64_t olderThanSeconds);

  const TokenOptions& options() const { return options_; }
  // True on PostgreSQL: cache hits are confirmed in the database (see above).
  bool confirmsCacheHits() const { return confirmHits_; }
  std::size_t cachedCount() const { return cache_.size(); }

 private:
  struct LiveToken {
    std::string tokenHash;
    bool remember = false;
    std::int64_t expiresAt = 0;
  };

  std::optional<CachedToken> loadIdentity(const std::string& tokenHash, std::int64_t now);
  std::optional<Identity> reload(const std::string& tokenHash, const TokenCache::Lookup& hit,
                                 std::int64_t now);
  // A fresh cache entry's identity, once confirmed live where hits are
  // confirmed; nullopt (and the entry erased) when the token died meanwhile.
  std::optional<Identity> confirmCached(const std::string& tokenHash, const CachedToken& entry,
                                        std::int64_t now);
  bool isLive(const std::string& tokenId, std::int64_t now);
  std::optional<LiveToken> liveToken(Queryable& db, const Identity& current, std::int64_t now);
  std::int64_t ttlFor(bool remember) const;

  rapport::Database& db_;
  rapport::Queryable& reads_;  // the database, for autocommit reads
  TokenOptions options_;
  bool confirmHits_;
  Clock clock_;
  TokenCache cache_;
};

}  // namespace rapport::host::accounts
