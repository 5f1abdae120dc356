// The api_keys table (migration 0014_api_keys): a company's API keys
// (decisions §15). Only the key's SHA-256 hex is stored; the key is shown
// once, by the create route.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accounts/TokenCache.h"
#include "rapport/db.h"
#include "rapport/json.h"

namespace rapport::host::accounts::apikeys {

// "rk_" + 32 random bytes, base64url: 256 bits (decisions §15).
inline constexpr std::string_view kKeyPrefix = "rk_";
inline constexpr std::size_t kKeyLength = 3 + 43;
// What key_prefix shows of a key: "rk_" and 8 more characters.
inline constexpr std::size_t kShownLength = 11;

// True when `bearer` has a key's shape: garbage never costs a hash or a query.
bool looksLikeKey(const std::string& bearer);

struct ApiKeyRecord {
  std::string id;  // key_...
  std::string companyId;
  std::string name;
  std::string keyPrefix;
  std::vector<std::string> scopes;
  std::string createdBy;  // user_...
  std::int64_t createdAt = 0;
  std::optional<std::int64_t> expiresAt;  // micros; nullopt: never
  std::optional<std::int64_t> lastUsedAt;
};

// ["contacts:read", ...]: a key's scopes in its answers and GET /auth/me.
Json scopesJson(const std::vector<std::string>& scopes);
// The key as every answer but the create's shows it: never `key`.
Json keyJson(const ApiKeyRecord& key);

void insert(Queryable& db, const ApiKeyRecord& key, const std::string& keyHash);
// The company's keys, newest first.
std::vector<ApiKeyRecord> list(Queryable& db, const std::string& companyId, std::int64_t limit,
                               std::int64_t offset);
std::int64_t count(Queryable& db, const std::string& companyId);
// `lock`: FOR UPDATE on PostgreSQL (a PATCH's read-modify-write).
std::optional<ApiKeyRecord> find(Queryable& db, const std::string& companyId, const std::string& id,
                                 bool lock = false);
// Writes name and scopes.
void update(Queryable& db, const ApiKeyRecord& key);
// Deletes the key; false when the company has no such key.
bool remove(Queryable& db, const std::string& companyId, const std::string& id);

// The identity of a live key (not expired), for the token cache: an
// integration of its company acting as admin with its scopes. One indexed
// lookup (key_hash is UNIQUE). nullopt for an unknown or expired key.
std::optional<CachedToken> loadIdentity(Queryable& db, const std::string& keyHash,
                                        std::int64_t now);
// A cache hit's confirmation where hits are confirmed: one primary-key lookup.
bool isLive(Queryable& db, const std::string& id, std::int64_t now);
// last_used_at = now, unless another instance wrote it within `within`.
void markUsed(Queryable& db, const std::string& id, std::int64_t now, std::int64_t within);

}  // namespace rapport::host::accounts::apikeys
