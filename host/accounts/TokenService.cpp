#include "accounts/TokenService.h"

#include <algorithm>

#include "accounts/apikeys/ApiKeyStore.h"
#include "log/Log.h"
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

// A cache hit's confirmation on PostgreSQL while revocation notices are not
// live: one primary-key lookup. Every revocation (logout, password change,
// member removal, family revoked) and every refresh grace writes this row,
// on whichever instance it happens, so the answer is exact across instances.
constexpr std::string_view kIsLiveSql =
    "SELECT 1 AS live FROM tokens WHERE id = ? AND revoked_at IS NULL AND expires_at > ?";

// A token's row as refresh and context switch read it.
constexpr std::string_view kTokenRowColumns =
    "SELECT id, user_id, company_id, remember, expires_at, revoked_at, refreshed_at, family_id, "
    "session_started_at FROM tokens ";

// Tokens expired or revoked before the cutoff, except a refreshed token whose
// family still has a live token (a reuse of it must still be recognised).
// Batched through the primary key so each statement stays short.
constexpr std::string_view kPurgeSql =
    "DELETE FROM tokens WHERE id IN ("
    "SELECT t.id FROM tokens t "
    "WHERE (t.expires_at < ? OR t.revoked_at < ?) "
    "AND (t.refreshed_at IS NULL OR NOT EXISTS ("
    "SELECT 1 FROM tokens f WHERE f.family_id = t.family_id AND f.revoked_at IS NULL "
    "AND f.expires_at > ?)) "
    "LIMIT ?)";

}  // namespace

struct TokenService::NewToken {
  std::string id;
  std::string userId;
  std::string companyId;
  bool remember = false;
  std::string familyId;
  std::int64_t sessionStartedAt = 0;
  std::int64_t now = 0;
};

struct TokenService::TokenRow {
  std::string id;
  std::string userId;
  std::string companyId;
  bool remember = false;
  std::int64_t expiresAt = 0;
  bool revoked = false;
  bool refreshed = false;
  std::string familyId;
  std::int64_t sessionStartedAt = 0;

  static TokenRow from(const Row& row) {
    return TokenRow{row.str("id"),
                    row.str("user_id"),
                    row.str("company_id"),
                    row.flag("remember"),
                    row.i64("expires_at"),
                    !row.isNull("revoked_at"),
                    !row.isNull("refreshed_at"),
                    row.str("family_id"),
                    row.i64("session_started_at")};
  }
};

TokenService::TokenService(rapport::Database& db, TokenOptions options, Clock clock)
    : db_(db),
      reads_(db),
      options_(options),
      // A SQLite file serves one rapportd (see the header): nothing can revoke
      // a token behind this instance's back, so hits need no confirmation.
      confirmHits_(db.dialect() == rapport::Dialect::PostgreSQL),
      clock_(std::move(clock)),
      cache_(options.cacheCapacity),
      // last_used_at moves at most once a minute (decisions §15).
      keyUsage_(60 * kMicrosPerSecond) {}

std::int64_t TokenService::sessionCap(std::int64_t sessionStartedAt) const {
  return sessionStartedAt + options_.maxSessionAge * kMicrosPerSecond;
}

IssuedToken TokenService::issue(const std::string& userId, const std::string& companyId,
                                bool remember) {
  return issue(reads_, userId, companyId, remember);
}

IssuedToken TokenService::issue(Queryable& db, const std::string& userId,
                                const std::string& companyId, bool remember) {
  const std::int64_t now = clock_();
  const std::string id = rapport::newId("tok_");
  // A login starts a family of its own, named after its first token.
  return insert(db, NewToken{id, userId, companyId, remember, id, now, now});
}

IssuedToken TokenService::insert(Queryable& db, const NewToken& token) {
  IssuedToken out;
  out.token = std::string(kTokenPrefix) + rapport::randomToken(kTokenBytes);
  out.tokenId = token.id;
  out.familyId = token.familyId;
  const std::int64_t ttl = (token.remember ? options_.rememberTtl : options_.tokenTtl);
  // Never past the family's session cap (a login lasts maxSessionAge at most).
  out.expiresAt = std::min(token.now + ttl * kMicrosPerSecond, sessionCap(token.sessionStartedAt));
  out.expiresIn = (out.expiresAt - token.now) / kMicrosPerSecond;
  out.remember = token.remember;
  db.exec(
      "INSERT INTO tokens (id, token_hash, user_id, company_id, remember, created_at, expires_at, "
      "family_id, session_started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {out.tokenId, rapport::sha256Hex(out.token), token.userId, token.companyId, token.remember,
       token.now, out.expiresAt, token.familyId, token.sessionStartedAt});
  return out;
}

std::optional<Identity> TokenService::authenticate(const std::string& bearerToken) {
  const bool apiKey = apikeys::looksLikeKey(bearerToken);
  if (!apiKey && !looksLikeToken(bearerToken)) return std::nullopt;
  const std::string tokenHash = rapport::sha256Hex(bearerToken);
  const std::int64_t now = clock_();
  const TokenCache::Lookup hit = cache_.find(tokenHash);
  if (hit.entry) {
    // The cached expiry is exact (refresh shortens it here, and a refresh
    // elsewhere drops the entry; a key's never changes), so an expired
    // token or key costs no query.
    if (now >= hit.entry->expiresAt) {
      cache_.erase(tokenHash);
      return std::nullopt;
    }
    if (now - hit.entry->cachedAt < options_.cacheTtlSeconds * kMicrosPerSecond) {
      return used(confirmCached(tokenHash, *hit.entry, now), now);
    }
  }
  return used(reload(tokenHash, apiKey, hit, now), now);
}

std::optional<Identity> TokenService::used(std::optional<Identity> identity, std::int64_t now) {
  if (identity && identity->isApiKey() && keyUsage_.record(identity->tokenId, now) &&
      wakeKeyUsage_) {
    wakeKeyUsage_();
  }
  return identity;
}

std::optional<Identity> TokenService::confirmCached(const std::string& tokenHash,
                                                    const CachedToken& entry, std::int64_t now) {
  if (!confirmsCacheHits() || isLive(entry.identity, now)) return entry.identity;
  cache_.erase(tokenHash);
  return std::nullopt;
}

bool TokenService::isLive(const Identity& identity, std::int64_t now) {
  if (identity.isApiKey()) return apikeys::isLive(db_, identity.tokenId, now);
  return !db_.query(kIsLiveSql, {identity.tokenId, now}).empty();
}

void TokenService::forgetKey(Tx& tx, const std::string& keyId) {
  notify(tx, "t:" + keyId);
  tx.afterCommit([this, keyId] { cache_.eraseToken(keyId); });
}

std::optional<Identity> TokenService::reload(const std::string& tokenHash, bool apiKey,
                                             const TokenCache::Lookup& hit, std::int64_t now) {
  std::optional<CachedToken> loaded = loadIdentity(tokenHash, apiKey, now);
  if (!loaded) {
    if (hit.entry) cache_.erase(tokenHash);
    return std::nullopt;
  }
  cache_.storeIfUnchanged(tokenHash, *loaded, hit.epoch);
  return loaded->identity;
}

std::optional<CachedToken> TokenService::loadIdentity(const std::string& tokenHash, bool apiKey,
                                                      std::int64_t now) {
  if (apiKey) return apikeys::loadIdentity(db_, tokenHash, now);
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

bool TokenService::memberActive(Queryable& db, const std::string& userId,
                                const std::string& companyId) {
  return !db.query(
                "SELECT 1 AS ok FROM memberships m JOIN users u ON u.id = m.user_id "
                "WHERE m.company_id = ? AND m.user_id = ? AND u.disabled = ?",
                {companyId, userId, false})
              .empty();
}

std::optional<IssuedToken> TokenService::refresh(const std::string& bearerToken) {
  if (!looksLikeToken(bearerToken)) return std::nullopt;
  const std::string tokenHash = rapport::sha256Hex(bearerToken);
  RefreshOutcome outcome = RefreshOutcome::Refused;
  std::optional<IssuedToken> issued;
  TokenRow row;
  db_.transaction("", [&](Tx& tx) {
    // The callback may run again (PostgreSQL deadlock retry): start clean.
    issued.reset();
    outcome = refreshIn(tx, tokenHash, row, issued);
  });
  if (outcome == RefreshOutcome::Reused) logReuse("refresh", row);
  return outcome == RefreshOutcome::Issued ? issued : std::nullopt;
}

void TokenService::logReuse(std::string_view how, const TokenRow& row) {
  // A security event: someone holds a copy of a token of this login.
  log::warn(std::string(how) + " of an already refreshed token: its family is revoked",
            {{"user_id", row.userId}, {"family_id", row.familyId}, {"token_id", row.id}});
}

TokenService::RefreshOutcome TokenService::refreshIn(Tx& tx, const std::string& tokenHash,
                                                     TokenRow& row,
                                                     std::optional<IssuedToken>& issued) {
  const std::int64_t now = clock_();
  const Result found =
      tx.query(std::string(kTokenRowColumns) + "WHERE token_hash = ?", {tokenHash});
  if (const auto outcome = screen(tx, found, row, now)) return *outcome;
  if (!memberActive(tx, row.userId, row.companyId)) return RefreshOutcome::Refused;
  // At the session cap: nothing left to hand out, the user logs in again.
  if (sessionCap(row.sessionStartedAt) - now < kMicrosPerSecond) return RefreshOutcome::Refused;
  const std::string nextId = rapport::newId("tok_");
  // Requests already in flight with the old token get refreshGrace more
  // seconds; a token closer to its end keeps its own expiry.
  const std::int64_t graceEnd =
      std::min(row.expiresAt, now + options_.refreshGrace * kMicrosPerSecond);
  // The claim: only one refresh of a token can set refreshed_at. On
  // PostgreSQL a concurrent one waits for the row, then finds it set.
  const std::int64_t claimed = tx.exec(
      "UPDATE tokens SET refreshed_at = ?, replaced_by = ?, expires_at = ? "
      "WHERE id = ? AND refreshed_at IS NULL AND revoked_at IS NULL",
      {now, nextId, graceEnd, row.id});
  if (claimed != 1) {
    revokeFamily(tx, row, now);
    return RefreshOutcome::Reused;
  }
  issued = insert(tx, NewToken{nextId, row.userId, row.companyId, row.remember, row.familyId,
                               row.sessionStartedAt, now});
  notify(tx, "t:" + row.id);
  tx.afterCommit([this, tokenHash, graceEnd] { cache_.shorten(tokenHash, graceEnd); });
  return RefreshOutcome::Issued;
}

void TokenService::revokeFamily(Tx& tx, const TokenRow& row, std::int64_t now) {
  tx.exec("UPDATE tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL",
          {now, row.familyId});
  // A family is one user's: dropping the user's entries covers it.
  notify(tx, "u:" + row.userId);
  const std::string userId = row.userId;
  tx.afterCommit([this, userId] { cache_.eraseUser(userId); });
}

std::optional<IssuedToken> TokenService::issueForCompany(const Identity& current,
                                                         const std::string& companyId,
                                                         const SwitchCheck& admit) {
  RefreshOutcome outcome = RefreshOutcome::Refused;
  std::optional<IssuedToken> issued;
  TokenRow row;
  db_.transaction("", [&](Tx& tx) {
    // The callback may run again (PostgreSQL deadlock retry): start clean.
    issued.reset();
    outcome = switchIn(tx, current, companyId, admit, row, issued);
  });
  if (outcome == RefreshOutcome::Reused) logReuse("context switch", row);
  return outcome == RefreshOutcome::Issued ? issued : std::nullopt;
}

std::optional<TokenService::RefreshOutcome> TokenService::screen(Tx& tx, const Result& found,
                                                                 TokenRow& row, std::int64_t now) {
  if (found.empty()) return RefreshOutcome::Refused;
  row = TokenRow::from(found.front());
  // Checked before expiry and revocation: a refreshed token stays one for as
  // long as its row lives (the purge keeps it while the family is alive).
  if (row.refreshed) {
    revokeFamily(tx, row, now);
    return RefreshOutcome::Reused;
  }
  if (row.revoked || row.expiresAt <= now) return RefreshOutcome::Refused;
  return std::nullopt;
}

TokenService::RefreshOutcome TokenService::switchIn(Tx& tx, const Identity& current,
                                                    const std::string& companyId,
                                                    const SwitchCheck& admit, TokenRow& row,
                                                    std::optional<IssuedToken>& issued) {
  const std::int64_t now = clock_();
  const Result found = tx.query(std::string(kTokenRowColumns) + "WHERE id = ? AND user_id = ?",
                                {current.tokenId, current.userId});
  if (const auto outcome = screen(tx, found, row, now)) return *outcome;
  // The row, taken: a refresh of this token at the same moment waits for
  // this commit (and then refreshes it), or it committed first and this
  // update finds the token refreshed: the loser of that race is reuse, as
  // between two refreshes. On SQLite the transaction holds the write lock.
  const std::int64_t held = tx.exec(
      "UPDATE tokens SET refreshed_at = NULL WHERE id = ? AND refreshed_at IS NULL "
      "AND revoked_at IS NULL",
      {row.id});
  if (held != 1) {
    const Result again = tx.query(std::string(kTokenRowColumns) + "WHERE id = ?", {row.id});
    if (again.empty() || again.front().isNull("refreshed_at")) return RefreshOutcome::Refused;
    revokeFamily(tx, row, now);
    return RefreshOutcome::Reused;
  }
  if (admit) admit(tx, row.companyId);
  // A second token for the same company would be a sibling outside the
  // refresh chain (the route answers 422 before this).
  if (companyId == row.companyId) return RefreshOutcome::Refused;
  if (sessionCap(row.sessionStartedAt) - now < kMicrosPerSecond) return RefreshOutcome::Refused;
  issued = insert(tx, NewToken{rapport::newId("tok_"), row.userId, companyId, row.remember,
                               row.familyId, row.sessionStartedAt, now});
  return RefreshOutcome::Issued;
}

std::optional<std::int64_t> TokenService::sessionStartedAt(const std::string& tokenId) {
  const Result found =
      reads_.query("SELECT session_started_at FROM tokens WHERE id = ?", {tokenId});
  if (found.empty()) return std::nullopt;
  return found.front().i64("session_started_at");
}

bool TokenService::revoke(const std::string& tokenId) {
  Result result;
  db_.transaction("", [&](Tx& tx) {
    // COALESCE keeps the first revocation time when logout is repeated.
    result = tx.query(
        "UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? "
        "RETURNING token_hash",
        {clock_(), tokenId});
    if (!result.empty()) notify(tx, "t:" + tokenId);
  });
  for (const Row& row : result) cache_.erase(row.str("token_hash"));
  return !result.empty();
}

void TokenService::revokeAllForUser(const std::string& userId, const std::string& keepTokenId) {
  db_.transaction("", [&](Tx& tx) { revokeAllForUser(tx, userId, keepTokenId); });
}

void TokenService::revokeAllForUser(Tx& tx, const std::string& userId,
                                    const std::string& keepTokenId) {
  tx.exec("UPDATE tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id <> ?",
          {clock_(), userId, keepTokenId});
  invalidateUser(tx, userId);
}

void TokenService::revokeMembership(Tx& tx, const std::string& userId,
                                    const std::string& companyId) {
  tx.exec(
      "UPDATE tokens SET revoked_at = ? WHERE user_id = ? AND company_id = ? "
      "AND revoked_at IS NULL",
      {clock_(), userId, companyId});
  invalidateUser(tx, userId);
}

void TokenService::invalidateUser(const std::string& userId) {
  cache_.eraseUser(userId);
  notify(reads_, "u:" + userId);
}

void TokenService::invalidateUser(Tx& tx, const std::string& userId) {
  notify(tx, "u:" + userId);
  tx.afterCommit([this, userId] { cache_.eraseUser(userId); });
}

void TokenService::notify(Queryable& db, const std::string& payload) {
  if (db.dialect() != rapport::Dialect::PostgreSQL) return;
  // pg_notify returns void: the cast gives the row a readable column.
  db.query("SELECT pg_notify(?, ?)::text AS sent", {std::string(kNoticeChannel), payload});
}

void TokenService::applyNotice(std::string_view payload) {
  if (payload.size() <= 2 || payload[1] != ':') return;
  const std::string subject(payload.substr(2));
  if (payload[0] == 't') {
    cache_.eraseToken(subject);
  } else if (payload[0] == 'u') {
    cache_.eraseUser(subject);
  }
}

void TokenService::setNoticesLive(bool live) {
  if (live) {
    // Notices sent while nobody listened are lost: forget everything first,
    // and only then stop confirming hits.
    cache_.clear();
    noticesLive_.store(true);
  } else {
    noticesLive_.store(false);
  }
}

std::int64_t TokenService::purge(std::int64_t olderThanSeconds, std::int64_t batchSize,
                                 const std::function<bool()>& stopping) {
  const std::int64_t now = clock_();
  const std::int64_t cutoff = now - olderThanSeconds * kMicrosPerSecond;
  std::int64_t total = 0;
  for (;;) {
    const std::int64_t deleted = db_.exec(kPurgeSql, {cutoff, cutoff, now, batchSize});
    total += deleted;
    if (deleted < batchSize || (stopping && stopping())) break;
  }
  return total;
}

}  // namespace rapport::host::accounts
