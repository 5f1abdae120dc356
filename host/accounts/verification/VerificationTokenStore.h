// SQL for the email_verifications table
// (migrations/<dialect>/0011_email_verification.sql). A row holds the
// SHA-256 hex of a verification token (rapport::sha256Hex), never the token.
// Functions take the Queryable to run on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rapport/db.h"

namespace rapport::host::accounts::verification::tokens {

struct VerificationRow {
  std::string id;
  std::string tokenHash;
  std::string userId;
  std::string emailLower;
  std::int64_t createdAt = 0;
  std::int64_t expiresAt = 0;
};

void insert(Queryable& db, const VerificationRow& row);

struct Claimed {
  std::string id;
  std::string userId;
  std::string emailLower;
};

// Marks the token used when it is unused, unexpired at `now`, and its user
// still has the address it was mailed to; atomically (one statement): of two
// concurrent verifications with one token, one claims it.
std::optional<Claimed> claim(Queryable& db, const std::string& tokenHash, std::int64_t now);

// Deletes the user's tokens except `keepId` (empty: all of them).
std::int64_t deleteForUser(Queryable& db, const std::string& userId,
                           const std::string& keepId = {});

// Deletes tokens that expired or were used before `cutoff`; returns how many.
std::int64_t purgeExpired(Queryable& db, std::int64_t cutoff);

}  // namespace rapport::host::accounts::verification::tokens
