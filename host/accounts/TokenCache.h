// The in-memory cache in front of the tokens table: token hash -> identity.
//
// Why a cache: authentication runs on every request, and a hit must cost no
// database round trip. Entries are split over shards, each with its own
// mutex, so concurrent requests rarely wait on one another.
//
// Revocation race: a request that missed the cache reads the database, then
// stores what it read. If a revocation on this instance lands in between, the
// stored entry would resurrect the token. Each shard therefore carries an
// epoch, bumped by every erase; a store succeeds only if the epoch it saw
// before reading the database is still current. The erases that come from
// another instance (eraseToken, eraseUser, clear: revocation notices) do not
// know which shard a token lives in, so they bump every shard's epoch.
//
// Threading: every member is thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "rapport/http.h"

namespace rapport::host::accounts {

// The user's public fields, read with the identity (GET /auth/me answers
// from them without a query).
struct UserSummary {
  std::string name;
  std::string email;
  bool twoFactorEnabled = false;
  std::int64_t createdAt = 0;  // micros
};

struct CachedToken {
  Identity identity;
  UserSummary user;
  std::int64_t expiresAt = 0;  // the token's own expiry (micros)
  std::int64_t cachedAt = 0;   // when the database last confirmed it (micros)
};

class TokenCache {
 public:
  // `capacity` bounds the number of entries over all shards (at least one per shard).
  explicit TokenCache(std::size_t capacity);

  struct Lookup {
    std::optional<CachedToken> entry;
    std::uint64_t epoch = 0;  // pass to storeIfUnchanged after reading the database
  };
  Lookup find(const std::string& tokenHash) const;

  // Stores `entry` unless the shard changed (erase, shorten) since `epoch`.
  // A full shard evicts an arbitrary entry: evicted tokens only cost a
  // database lookup on their next use.
  void storeIfUnchanged(const std::string& tokenHash, const CachedToken& entry,
                        std::uint64_t epoch);

  void erase(const std::string& tokenHash);
  // Lowers the cached expiry (refresh grace) without touching anything else.
  void shorten(const std::string& tokenHash, std::int64_t expiresAt);
  // Drops every entry of the user (password reset, membership removed).
  // Walks all entries: meant for rare administrative changes.
  void eraseUser(const std::string& userId);
  // Drops the entry of one token by its id (a revocation notice names the
  // token id, never its hash): one indexed lookup per shard.
  void eraseToken(const std::string& tokenId);
  // Drops every entry (revocation notices were missed).
  void clear();

  std::size_t size() const;

 private:
  static constexpr std::size_t kShards = 16;
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<std::string, CachedToken> entries;
    std::unordered_map<std::string, std::string> hashById;  // tokenId -> key of `entries`
    std::uint64_t epoch = 0;
  };

  static void eraseEntry(Shard& shard, std::unordered_map<std::string, CachedToken>::iterator it);
  Shard& shardFor(const std::string& tokenHash);
  const Shard& shardFor(const std::string& tokenHash) const;

  std::size_t perShardCapacity_;
  std::array<Shard, kShards> shards_;
};

}  // namespace rapport::host::accounts
