#include "accounts/apikeys/ApiKeyStore.h"

#include <limits>

#include "rapport/tags.h"
#include "rapport/time.h"

namespace rapport::host::accounts::apikeys {
namespace {

constexpr std::string_view kColumns =
    "SELECT id, company_id, name, key_prefix, scopes, created_by, created_at, expires_at, "
    "last_used_at FROM api_keys ";

std::optional<std::int64_t> optionalMicros(const Row& row, std::string_view column) {
  if (row.isNull(column)) return std::nullopt;
  return row.i64(column);
}

Json nullableTime(const std::optional<std::int64_t>& micros) {
  return micros ? Json(isoTimestamp(*micros)) : Json(nullptr);
}

Value nullableValue(const std::optional<std::int64_t>& micros) {
  return micros ? Value(*micros) : Value();
}

// The scopes column is a JSON array of strings, the shape of a record's tags
// column: tags.h writes and reads both.
ApiKeyRecord recordOf(const Row& row) {
  return {.id = row.str("id"),
          .companyId = row.str("company_id"),
          .name = row.str("name"),
          .keyPrefix = row.str("key_prefix"),
          .scopes = tagsFromJsonText(row.str("scopes")),
          .createdBy = row.str("created_by"),
          .createdAt = row.i64("created_at"),
          .expiresAt = optionalMicros(row, "expires_at"),
          .lastUsedAt = optionalMicros(row, "last_used_at")};
}

// A key without expiry lives until revoked.
std::int64_t expiryOf(const std::optional<std::int64_t>& expiresAt) {
  return expiresAt.value_or(std::numeric_limits<std::int64_t>::max());
}

}  // namespace

bool looksLikeKey(const std::string& bearer) {
  return bearer.size() == kKeyLength && bearer.compare(0, kKeyPrefix.size(), kKeyPrefix) == 0;
}

Json scopesJson(const std::vector<std::string>& scopes) {
  Json array = Json::array();
  for (const std::string& scope : scopes) array.push(scope);
  return array;
}

Json keyJson(const ApiKeyRecord& key) {
  return Json::object({{"id", key.id},
                       {"name", key.name},
                       {"scopes", scopesJson(key.scopes)},
                       {"key_prefix", key.keyPrefix},
                       {"created_at", isoTimestamp(key.createdAt)},
                       {"expires_at", nullableTime(key.expiresAt)},
                       {"last_used_at", nullableTime(key.lastUsedAt)},
                       {"created_by", key.createdBy}});
}

void insert(Queryable& db, const ApiKeyRecord& key, const std::string& keyHash) {
  db.exec(
      "INSERT INTO api_keys (id, company_id, name, key_hash, key_prefix, scopes, created_by, "
      "created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {key.id, key.companyId, key.name, keyHash, key.keyPrefix, tagsToJsonText(key.scopes),
       key.createdBy, key.createdAt, nullableValue(key.expiresAt)});
}

std::vector<ApiKeyRecord> list(Queryable& db, const std::string& companyId, std::int64_t limit,
                               std::int64_t offset) {
  std::vector<ApiKeyRecord> out;
  for (const Row& row :
       db.query(std::string(kColumns) +
                    "WHERE company_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
                {companyId, limit, offset})) {
    out.push_back(recordOf(row));
  }
  return out;
}

std::int64_t count(Queryable& db, const std::string& companyId) {
  const Result result =
      db.query("SELECT COUNT(*) AS n FROM api_keys WHERE company_id = ?", {companyId});
  return result.empty() ? 0 : result.front().i64("n");
}

std::optional<ApiKeyRecord> find(Queryable& db, const std::string& companyId, const std::string& id,
                                 bool lock) {
  const bool forUpdate = lock && db.dialect() == Dialect::PostgreSQL;
  const Result result = db.query(
      std::string(kColumns) + "WHERE company_id = ? AND id = ?" + (forUpdate ? " FOR UPDATE" : ""),
      {companyId, id});
  if (result.empty()) return std::nullopt;
  return recordOf(result.front());
}

void update(Queryable& db, const ApiKeyRecord& key) {
  db.exec("UPDATE api_keys SET name = ?, scopes = ? WHERE company_id = ? AND id = ?",
          {key.name, tagsToJsonText(key.scopes), key.companyId, key.id});
}

bool remove(Queryable& db, const std::string& companyId, const std::string& id) {
  return db.exec("DELETE FROM api_keys WHERE company_id = ? AND id = ?", {companyId, id}) > 0;
}

std::optional<CachedToken> loadIdentity(Queryable& db, const std::string& keyHash,
                                        std::int64_t now) {
  const Result result = db.query(
      "SELECT id, company_id, scopes, expires_at FROM api_keys "
      "WHERE key_hash = ? AND (expires_at IS NULL OR expires_at > ?)",
      {keyHash, now});
  if (result.empty()) return std::nullopt;
  const Row& row = result.front();
  CachedToken entry;
  entry.identity.authenticated = true;
  entry.identity.companyId = row.str("company_id");
  // An integration acts as an admin at most (decisions §15): never as an
  // owner, and the account routes refuse it whatever it holds.
  entry.identity.role = Role::Admin;
  entry.identity.tokenId = row.str("id");
  entry.identity.principal = Principal::ApiKey;
  entry.identity.scopes = tagsFromJsonText(row.str("scopes"));
  entry.expiresAt = expiryOf(optionalMicros(row, "expires_at"));
  entry.cachedAt = now;
  return entry;
}

bool isLive(Queryable& db, const std::string& id, std::int64_t now) {
  return !db.query(
                "SELECT 1 AS live FROM api_keys WHERE id = ? AND "
                "(expires_at IS NULL OR expires_at > ?)",
                {id, now})
              .empty();
}

void markUsed(Queryable& db, const std::string& id, std::int64_t now, std::int64_t within) {
  db.exec(
      "UPDATE api_keys SET last_used_at = ? WHERE id = ? AND "
      "(last_used_at IS NULL OR last_used_at <= ?)",
      {now, id, now - within});
}

}  // namespace rapport::host::accounts::apikeys
