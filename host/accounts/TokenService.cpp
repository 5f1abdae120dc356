#include "accounts/TokenService.h"

#include <algorithm>

#include "rapport/ids.h"
#include "rapport/roles.h"

namespace rapport::host::accounts {

namespace {

constexpr std::string_view kTokenPrefix = "rpt_";
constexpr std::size_t kTokenBytes = 32;       // 256 bits (decisions §3)
constexpr std::size_t kTokenLength = 4 + 43;  // prefix + base64url of 32 bytes

// Cheap shape check so garbage never costs a hash or a query.
bool looksLikeToken(const std::string& token) {
  return token.size() == kTokenLength && token.compare(0, kTokenPrefix.size(), kTokenPrefix) == 0;
}

// One indexed lookup (tokens.token_hash is UNIQUE) that also checks the
// membership (and reads its role) and that the user is not disabled.
// The user's public fields come along for GET /auth/me (UserSummary).
constexpr std::string_view kAuthenticateSql =
    "SELECT t.id, t.user_id, t.company_id, t.expires_at, m.role, "
    "u.name, u.email, u.two_factor_enabled, u.created_at "
    "FROM tokens t "
    "JOIN memberships m ON m.company_id = t.company_id AND m.user_id = t.user_id "
    "JOIN users u ON u.id = t.user_id "
    "WHERE t.token_hash = ? AND t.revoked_at IS NULL AND t.expires_at > ? AND u.disabled = ?";

// A cache hit's confirmation on PostgreSQL: one primary-key lookup. Every
// revocation (logout, password change, member removal) and every refresh
// grace writes this row, on whichever instance it happens, so the answer is
// exact across instances.
constexpr std::string_view kIsLiveSql =
    "SELECT 1 AS live FROM tokens WHERE id = ? AND revoked_at IS NULL AND expires_at > ?";

}  // namespace

TokenService::TokenService(rapport::Database& db, TokenOptions options, Clock clock)
    : db_(db),
      reads_(db),
      options_(options),
      // A SQLite file serves one rapportd (see the header): nothing can revoke
      // a token behind this instance's back, so hits need no confirmation.
      confirmHits_(db.dialect() == rapport::Dialect::PostgreSQL),
      clock_(std::move(clock)),
      cache_(options.cacheCapacity) {}

std::int64_t TokenService::ttlFor(bool remember) const {
  return remember ? options_.rememberTtl : options_.tokenTtl;
}

IssuedToken TokenService::issue(const std::string& userId, const std::string& companyId,
                                bool remember) {
  return issue(reads_, userId, companyId, remember);
}

IssuedToken TokenService::issue(Queryable& db, const std::string& userId,
                                const std::string& companyId, bool remember) {
  const std::int64_t now = clock_();
  IssuedToken out;
  out.token = std::string(kTokenPrefix) + rapport::randomToken(kTokenBytes);
  out.tokenId = rapport::newId("tok_");
  out.expiresIn = ttlFor(remember);
  out.expiresAt = now + out.expiresIn * kMicrosPerSecond;
  out.remember = remember;
  db.exec(
      "INSERT INTO tokens (id, token_hash, user_id, company_id, remember, created_at, expires_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?)",
      {out.tokenId, rapport::sha256Hex(out.token), userId, companyId, remember, now,
       out.expiresAt});
  return out;
}

std::optional<Identity> TokenService::authenticate(const std::string& bearerToken) {
  if (!looksLikeToken(bearerToken)) return std::nullopt;
  const std::string tokenHash = rapport::sha256Hex(bearerToken);
  const std::int64_t now = clock_();
  const TokenCache::Lookup hit = cache_.find(tokenHash);
  if (hit.entry) {
    // The cached expiry is exact (refresh on this instance shortens it), so
    // an expired token costs no query.
    if (now >= hit.entry->expiresAt) {
      cache_.erase(tokenHash);
      return std::nullopt;
    }
    if (now - hit.entry->cachedAt < options_.cacheTtlSeconds * kMicrosPerSecond) {
      return confirmCached(tokenHash, *hit.entry, now);
    }
  }
  return reload(tokenHash, hit, now);
}

std::optional<Identity> TokenService::confirmCached(const std::string& tokenHash,
                                                    const CachedToken& entry, std::int64_t now) {
  if (!confirmHits_ || isLive(entry.identity.tokenId, now)) return entry.identity;
  cache_.erase(tokenHash);
  return std::nullopt;
}

bool TokenService::isLive(const std::string& tokenId, std::int64_t now) {
  return !db_.query(kIsLiveSql, {tokenId, now}).empty();
}

std::optional<Identity> TokenService::reload(const std::string& tokenHash,
                                             const TokenCache::Lookup& hit, std::int64_t now) {
  std::optional<CachedToken> loaded = loadIdentity(tokenHash, now);
  if (!loaded) {
    if (hit.entry) cache_.erase(tokenHash);
    return std::nullopt;
  }
  cache_.storeIfUnchanged(tokenHash, *loaded, hit.epoch);
  return loaded->identity;
}

std::optional<CachedToken> TokenService::loadIdentity(const std::string& tokenHash,
                                                      std::int64_t now) {
  const Result result = db_.query(kAuthenticateSql, {tokenHash, now, false});
  if (result.empty()) return std::nullopt;
  const Row& row = result.front();
  const std::optional<Role> role = rapport::parseRole(row.str("role"));
  if (!role) return std::nullopt;
  CachedToken entry;
  entry.identity.authenticated = true;
  entry.identity.userId = row.str("user_id");
  entry.identity.companyId = row.str("company_id");
  entry.identity.role = *role;
  entry.identity.tokenId = row.str("id");
  entry.user.name = row.str("name");
  entry.user.email = row.str("email");
  entry.user.twoFactorEnabled = row.flag("two_factor_enabled");
  entry.user.createdAt = row.i64("created_at");
  entry.expiresAt = row.i64("expires_at");
  entry.cachedAt = now;
  return entry;
}

std::optional<UserSummary> TokenService::cachedUser(const std::string& bearerToken) const {
  if (!looksLikeToken(bearerToken)) return std::nullopt;
  const TokenCache::Lookup hit = cache_.find(rapport::sha256Hex(bearerToken));
  if (!hit.entry) return std::nullopt;
  return hit.entry->user;
}

std::optional<TokenService::LiveToken> TokenService::liveToken(Queryable& db,
                                                               const Identity& current,
                                                               std::int64_t now) {
  const Result result = db.query(
      "SELECT token_hash, remember, expires_at FROM tokens "
      "WHERE id = ? AND user_id = ? AND revoked_at IS NULL AND expires_at > ?",
      {current.tokenId, current.userId, now});
  if (result.empty()) return std::nullopt;
  const Row& row = result.front();
  return LiveToken{row.str("token_hash"), row.flag("remember"), row.i64("expires_at")};
}

std::optional<IssuedToken> TokenService::refresh(const Identity& current) {
  std::optional<IssuedToken> issued;
  std::string oldHash;
  std::int64_t oldExpiry = 0;
  db_.transaction(current.companyId, [&](Tx& tx) {
    const std::int64_t now = clock_();
    const std::optional<LiveToken> live = liveToken(tx, current, now);
    if (!live) return;
    issued = issue(tx, current.userId, current.companyId, live->remember);
    // Requests already in flight with the old token get refreshGrace more
    // seconds; a token closer to its end keeps its own expiry.
    oldHash = live->tokenHash;
    oldExpiry = std::min(live->expiresAt, now + options_.refreshGrace * kMicrosPerSecond);
    tx.exec("UPDATE tokens SET expires_at = ? WHERE id = ? AND expires_at > ?",
            {oldExpiry, current.tokenId, oldExpiry});
  });
  if (issued) cache_.shorten(oldHash, oldExpiry);
  return issued;
}

std::optional<IssuedToken> TokenService::issueForCompany(const Identity& current,
                                                         const std::string& companyId) {
  const std::optional<LiveToken> live = liveToken(reads_, current, clock_());
  if (!live) return std::nullopt;
  return issue(current.userId, companyId, live->remember);
}

bool TokenService::revoke(const std::string& tokenId) {
  // COALESCE keeps the first revocation time when logout is repeated.
  const Result result = db_.query(
      "UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING token_hash",
      {clock_(), tokenId});
  for (const Row& row : result) cache_.erase(row.str("token_hash"));
  return !result.empty();
}

void TokenService::revokeAllForUser(const std::string& userId, const std::string& keepTokenId) {
  db_.exec("UPDATE tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id <> ?",
           {clock_(), userId, keepTokenId});
  cache_.eraseUser(userId);
}

void TokenService::revokeAllForUser(Tx& tx, const std::string& userId,
                                    const std::string& keepTokenId) {
  tx.exec("UPDATE tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id <> ?",
          {clock_(), userId, keepTokenId});
  tx.afterCommit([this, userId] { cache_.eraseUser(userId); });
}

void TokenService::revokeMembership(Tx& tx, const std::string& userId,
                                    const std::string& companyId) {
  tx.exec(
      "UPDATE tokens SET revoked_at = ? WHERE user_id = ? AND company_id = ? "
      "AND revoked_at IS NULL",
      {clock_(), userId, companyId});
  tx.afterCommit([this, userId] { cache_.eraseUser(userId); });
}

void TokenService::invalidateUser(const std::string& userId) {
  cache_.eraseUser(userId);
}

std::int64_t TokenService::purgeExpired(std::int64_t olderThanSeconds) {
  const std::int64_t cutoff = clock_() - olderThanSeconds * kMicrosPerSecond;
  return db_.exec("DELETE FROM tokens WHERE expires_at < ?", {cutoff});
}

}  // namespace rapport::host::accounts
