// SQL for the password_resets table (migrations/<dialect>/0005_password_reset.sql).
// A row holds the SHA-256 hex of a reset token (rapport::sha256Hex, as for
// bearer tokens), never the token. Functions take the Queryable to run on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rapport/db.h"

namespace rapport::host::accounts::reset {

struct ResetTokenRow {
  std::string id;
  std::string tokenHash;
  std::string userId;
  std::string emailLower;
  std::int64_t createdAt = 0;
  std::int64_t expiresAt = 0;
};

namespace tokens {

void insert(Queryable& db, const ResetTokenRow& row);

// The user of the unused, unexpired token with `tokenHash` issued for
// `emailLower`, provided the user still has that address and is not
// disabled; nullopt otherwise (every case answers the same 422).
std::optional<std::string> findUsable(Queryable& db, const std::string& tokenHash,
                                      const std::string& emailLower, std::int64_t now);

struct Claimed {
  std::string id;
  std::string userId;
};

// Marks the token used if it still is usable (the condition of findUsable),
// atomically: of two concurrent resets with one token, one claims it.
std::optional<Claimed> claim(Queryable& db, const std::string& tokenHash,
                             const std::string& emailLower, std::int64_t now);

// Deletes the user's tokens except `keepId` (empty: all of them).
std::int64_t deleteForUser(Queryable& db, const std::string& userId,
                           const std::string& keepId = {});

// Creation time of the user's newest token, used or not (mail pacing).
std::optional<std::int64_t> latestCreatedAt(Queryable& db, const std::string& userId);

// Deletes tokens that expired or were used before `cutoff`; returns how many.
std::int64_t purgeExpired(Queryable& db, std::int64_t cutoff);

}  // namespace tokens
}  // namespace rapport::host::accounts::reset
