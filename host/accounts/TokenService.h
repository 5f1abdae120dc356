// Bearer tokens (decisions §3): issue, authenticate, refresh, revoke.
//
// A token is "rpt_" + 32 random bytes (base64url): 256 bits, opaque. Only its
// SHA-256 hex is stored (tokens.token_hash), so a database leak yields no
// usable token. A token resolves exactly one (user, company) pair; its role
// is read from the membership at validation time.
//
// Families and refresh (RFC 9700 §4.14 applied to our bearer tokens): every
// token belongs to a family, the login that started it (tokens.family_id,
// the first token's id; tokens.session_started_at, the login's time). Refresh
// and context switch copy both to the token they issue. A token is refreshed
// at most ONCE: the refresh marks it (refreshed_at, replaced_by) with a
// conditional update in the transaction that issues its successor, so of two
// concurrent refreshes exactly one issues a token. Presenting a token that
// was already refreshed to refresh again (the loser of such a race included)
// or to switch company is reuse: a copy of the token is in other hands, so
// the whole family is revoked (every token with that family_id, those that
// context switches issued included) and the call answers 401; the event is
// logged with the user and family ids, never the token. A context switch
// never issues a second token for the company the current one resolves: such
// a sibling would escape the refresh chain and its reuse detection. The old
// token keeps authenticating for refreshGrace seconds after its refresh, so
// requests already in flight finish. No token of a family expires after
// session_started_at + maxSessionAge (auth.max_session_age): refresh clips
// expires_in to it and, with less than a second left, answers 401 (log in
// again).
//
// Caching and revocation: authenticate() keeps the resolved identity (user,
// company, role: the join of tokens, memberships and users, with the user's
// public fields for GET /auth/me) in an in-memory cache and re-reads it once
// the entry is older than cacheTtlSeconds (auth.token_cache_ttl, default 10):
// the last line of defence whatever happens below. What a hit costs depends
// on the engine:
//
//   PostgreSQL (several rapportd may share the database): whoever revokes a
//   token or changes an identity (revoke, revokeAllForUser, revokeMembership,
//   a refresh, a family revoked for reuse, invalidateUser: role change,
//   member removal, disabled account, profile and two-factor changes) sends
//   pg_notify('rapport_auth', payload) IN the same transaction, so it is
//   delivered at commit and never for a change rolled back (calls made
//   outside a transaction send it in a transaction of their own, or in
//   autocommit for invalidateUser(userId)). Payloads: "t:<token_id>" drops
//   one token's entry, "u:<user_id>" every entry of the user. Each instance
//   runs a RevocationListener (accounts/revocation/): one libpq connection
//   that LISTENs and feeds applyNotice(), so every instance drops the entries
//   within milliseconds of the commit. While that listener is connected and
//   listening (setNoticesLive(true)), a cache hit costs no query. While it is
//   not (start-up, database restart, network trouble), every hit is
//   confirmed with ONE primary-key lookup (tokens.id, not revoked, not
//   expired), the behaviour before notifications existed: revocations stay
//   exact across instances; a role change or a disabled account made
//   elsewhere then shows within cacheTtlSeconds. When the listener (re)starts
//   listening the whole cache is dropped first (notices were missed), then
//   hits stop being confirmed. A TokenService without a listener (tests,
//   tools) always confirms hits on PostgreSQL.
//
//   SQLite (one rapportd per database file: SQLite is an embedded database,
//   and the supported deployment is a single process): no notifications and
//   no listener; a hit costs nothing. Changes made through this instance
//   take effect here at once (the cache entries are dropped after commit); a
//   change made behind its back (another process, or SQL by hand) is seen
//   within cacheTtlSeconds. Set it to 0 to always read the database.
//
// API keys (decisions §15, accounts/apikeys/): a bearer "rk_..." resolves
// through the same path, cache and notices as a token: the api_keys row by
// its hash, an identity of principal ApiKey (role admin, the key's
// scopes), confirmed where hits are confirmed by a lookup of its row. A
// deleted or changed key is forgotten on every instance (forgetKey: the
// notice "t:<key id>"); an expired one is refused from the cached expiry.
// Each use is noted in memory (keyUsage()) for the job that writes
// last_used_at.
//
// Threading: every member is thread-safe. The Database must outlive this.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "accounts/Clock.h"
#include "accounts/TokenCache.h"
#include "accounts/apikeys/KeyUsage.h"
#include "http/Authenticator.h"
#include "rapport/db.h"
#include "rapport/http.h"

namespace rapport::host::accounts {

struct TokenOptions {
  std::int64_t tokenTtl = 3600;          // seconds (auth.token_ttl)
  std::int64_t rememberTtl = 2592000;    // seconds with remember_me (auth.remember_ttl)
  std::int64_t cacheTtlSeconds = 10;     // re-validation age (auth.token_cache_ttl)
  std::size_t cacheCapacity = 100000;    // entries (auth.token_cache_size)
  std::int64_t refreshGrace = 60;        // seconds an old token lives on (auth.refresh_grace)
  std::int64_t maxSessionAge = 7776000;  // seconds a login lasts at most (auth.max_session_age)
};

struct IssuedToken {
  std::string token;  // the bearer token: hand it to the client, never log or store it
  std::string tokenId;
  std::string familyId;        // the login this token descends from
  std::int64_t expiresAt = 0;  // micros since the epoch
  std::int64_t expiresIn = 0;  // seconds
  bool remember = false;       // lifetime class
};

class TokenService : public Authenticator {
 public:
  // The PostgreSQL channel of revocation notices.
  static constexpr std::string_view kNoticeChannel = "rapport_auth";

  TokenService(rapport::Database& db, TokenOptions options = {}, Clock clock = systemClock());

  // A new token for a member of `companyId`, starting a new family (a login).
  // The Queryable overload writes in the caller's transaction (register:
  // user, company and token in one commit).
  IssuedToken issue(const std::string& userId, const std::string& companyId, bool remember);
  IssuedToken issue(Queryable& db, const std::string& userId, const std::string& companyId,
                    bool remember);

  // Authenticator: nullopt for a malformed, unknown, expired or revoked
  // token, a disabled user, or a user no longer member of the token's
  // company; and for an unknown or expired API key.
  std::optional<Identity> authenticate(const std::string& bearerToken) override;

  // Forgets API key `keyId` on every instance once `tx` commits (it was
  // deleted, or its scopes changed): the notice goes with the commit, and
  // this instance drops its entry after it.
  void forgetKey(Tx& tx, const std::string& keyId);
  // The keys' uses not written yet (api_keys.last_used_at).
  apikeys::KeyUsage& keyUsage() { return keyUsage_; }
  // Called when a key's use is noted for writing (the job's wake).
  void onKeyUse(std::function<void()> wake) { wakeKeyUsage_ = std::move(wake); }

  // Refreshes `bearerToken` (POST /auth/refresh, which reads the token
  // itself so that a refreshed token is recognised even after its grace
  // ended): a new token of the same lifetime class, family and company; the
  // current one then expires within refreshGrace seconds (never later than
  // it would have). nullopt (401) when the token is unknown, expired,
  // revoked, its user disabled or no longer a member, or the session reached
  // maxSessionAge; and when it was refreshed already, after revoking its
  // whole family (reuse, see above).
  std::optional<IssuedToken> refresh(const std::string& bearerToken);

  // A new token for `companyId` (context switch) in the lifetime class and
  // the family of the current token: the same login, so the same session
  // cap, and a reuse anywhere in the family revokes it too. The current
  // token is left as it is (it keeps resolving its own company).
  //
  // One transaction, the current token checked first: a token refreshed
  // already (in its grace, or the loser of a refresh running at the same
  // moment) is reuse, exactly as for refresh: its whole family is revoked,
  // logged without the token, and nullopt (401) comes back. Otherwise the
  // row is taken (a concurrent refresh of it waits for this commit), then
  // `admit` runs in the same transaction with the token's company: the
  // caller's checks (another company, which exists, of which the user is a
  // member), which throw to refuse; nothing is written then. nullopt as
  // well when the token is revoked or expired, `companyId` is the company
  // it already resolves (a sibling there would live outside the refresh
  // chain, so no reuse of the chain would reveal it), or the session
  // reached its cap.
  using SwitchCheck = std::function<void(Queryable& tx, const std::string& currentCompanyId)>;
  std::optional<IssuedToken> issueForCompany(const Identity& current, const std::string& companyId,
                                             const SwitchCheck& admit = {});

  // When the login of token `tokenId` happened (its family's
  // session_started_at, micros); nullopt for an unknown token. Refresh and
  // context switch keep it: it tells a fresh sign-in from an old session.
  std::optional<std::int64_t> sessionStartedAt(const std::string& tokenId);

  // Revokes one token at once (logout). False when no such token exists.
  bool revoke(const std::string& tokenId);

  // Revokes every live token of the user except `keepTokenId` (password
  // change keeps the caller's own). The Tx overload revokes (and notifies)
  // in the caller's transaction and drops the cache entries after it commits.
  void revokeAllForUser(const std::string& userId, const std::string& keepTokenId = {});
  void revokeAllForUser(Tx& tx, const std::string& userId, const std::string& keepTokenId = {});

  // Revokes the user's live tokens for one company in the caller's
  // transaction (member removed) and, once it commits, forgets the user's
  // cached identities here; other instances are notified by the commit.
  void revokeMembership(Tx& tx, const std::string& userId, const std::string& companyId);

  // Forgets cached identities of the user on every instance so the next
  // request re-reads the database (membership removed or role changed, user
  // disabled, and any change of the fields of UserSummary: profile,
  // two-factor). Call the Tx overload inside the transaction that makes the
  // change (the notice then goes with the commit, and never for a rollback);
  // the other one after the change committed (an autocommit notice).
  void invalidateUser(const std::string& userId);
  void invalidateUser(Tx& tx, const std::string& userId);

  // The user's public fields cached with `bearerToken` (read with its
  // identity, so at most cacheTtlSeconds old, and fresh after any
  // invalidateUser while notices are live). nullopt when the token is not
  // cached: read the users table then. Call after authenticate() accepted it.
  std::optional<UserSummary> cachedUser(const std::string& bearerToken) const;

  // Deletes tokens that expired, or were revoked, more than
  // `olderThanSeconds` ago, in batches of `batchSize` rows, until none is
  // left or `stopping` says so; returns how many. A refreshed token is kept
  // while any token of its family is live: reuse detection needs its row.
  std::int64_t purge(std::int64_t olderThanSeconds, std::int64_t batchSize = 1000,
                     const std::function<bool()>& stopping = {});

  // Revocation notices (RevocationListener). applyNotice() takes a payload
  // ("t:<token_id>", "u:<user_id>"; anything else is ignored).
  // setNoticesLive(true) says the listener listens: the cache is cleared
  // (notices were missed), then hits stop being confirmed; false turns
  // confirmation back on at once.
  void applyNotice(std::string_view payload);
  void setNoticesLive(bool live);
  bool noticesLive() const { return noticesLive_.load(); }

  const TokenOptions& options() const { return options_; }
  // True when a cache hit is confirmed in the database: on PostgreSQL while
  // no listener is live (see above).
  bool confirmsCacheHits() const { return confirmHits_ && !noticesLive_.load(); }
  std::size_t cachedCount() const { return cache_.size(); }

 private:
  struct NewToken;
  struct TokenRow;
  enum class RefreshOutcome { Refused, Issued, Reused };

  // `apiKey`: the hash is an API key's (api_keys), else a token's.
  std::optional<CachedToken> loadIdentity(const std::string& tokenHash, bool apiKey,
                                          std::int64_t now);
  std::optional<Identity> reload(const std::string& tokenHash, bool apiKey,
                                 const TokenCache::Lookup& hit, std::int64_t now);
  // What authenticate() found, its key's use noted.
  std::optional<Identity> used(std::optional<Identity> identity, std::int64_t now);
  // A fresh cache entry's identity, once confirmed live where hits are
  // confirmed; nullopt (and the entry erased) when the token died meanwhile.
  std::optional<Identity> confirmCached(const std::string& tokenHash, const CachedToken& entry,
                                        std::int64_t now);
  bool isLive(const Identity& identity, std::int64_t now);
  IssuedToken insert(Queryable& db, const NewToken& token);
  RefreshOutcome refreshIn(Tx& tx, const std::string& tokenHash, TokenRow& row,
                           std::optional<IssuedToken>& issued);
  RefreshOutcome switchIn(Tx& tx, const Identity& current, const std::string& companyId,
                          const SwitchCheck& admit, TokenRow& row,
                          std::optional<IssuedToken>& issued);
  // What refresh and switch check first, on the token's row `found` (read
  // into `row`): none, Refused; a refreshed token is reuse wherever it is
  // shown (its family revoked in `tx`), Reused; a revoked or expired one,
  // Refused. nullopt: the caller goes on.
  std::optional<RefreshOutcome> screen(Tx& tx, const Result& found, TokenRow& row,
                                       std::int64_t now);
  // Logs a reuse (a security event): the ids of `row`, never the token.
  static void logReuse(std::string_view how, const TokenRow& row);
  void revokeFamily(Tx& tx, const TokenRow& row, std::int64_t now);
  bool memberActive(Queryable& db, const std::string& userId, const std::string& companyId);
  // pg_notify in `db`'s transaction (or autocommit); nothing on SQLite.
  void notify(Queryable& db, const std::string& payload);
  std::int64_t sessionCap(std::int64_t sessionStartedAt) const;

  rapport::Database& db_;
  rapport::Queryable& reads_;  // the database, for autocommit reads
  TokenOptions options_;
  bool confirmHits_;
  std::atomic<bool> noticesLive_{false};
  Clock clock_;
  TokenCache cache_;
  apikeys::KeyUsage keyUsage_;
  std::function<void()> wakeKeyUsage_;
};

}  // namespace rapport::host::accounts
