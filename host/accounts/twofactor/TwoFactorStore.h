// SQL for the two-factor tables (migrations/<dialect>/0006_two_factor.sql).
// Every function takes the Queryable to run on, so a whole step (confirm,
// a challenge's success) commits in one transaction. The conditional
// updates return whether they won, which is how concurrent requests with
// the same code, recovery code or challenge are told apart: exactly one
// sees true.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/secrets.h"

namespace rapport::host::accounts::twofactor::store {

// ---------------------------------------------------------------- secrets

struct SecretRow {
  std::string sealed;  // SecretBox text; open with openSecret()
  bool confirmed = false;
  std::int64_t lastStep = 0;
};

std::string sealSecret(const rapport::SecretBox& box, const std::string& userId,
                       const std::string& secretBase32);
// Throws std::runtime_error when the value was not sealed for this user.
std::string openSecret(const rapport::SecretBox& box, const std::string& userId,
                       const std::string& sealed);

std::optional<SecretRow> findSecret(Queryable& db, const std::string& userId);
// Stores a pending secret, replacing a pending one; false (nothing written)
// when the user's secret is already confirmed.
bool savePending(Queryable& db, const std::string& userId, const std::string& sealed,
                 std::int64_t now);
// Confirms the pending secret `sealed` (not one that replaced it meanwhile).
bool confirm(Queryable& db, const std::string& userId, const std::string& sealed, std::int64_t now);
// Records `step` as the last accepted one when it is later than the stored
// one; false when it is not (a replay, or a concurrent use of the code).
bool advanceStep(Queryable& db, const std::string& userId, std::int64_t step, std::int64_t now);
// The secret and every recovery code of the user.
void removeAll(Queryable& db, const std::string& userId);
// users.two_factor_enabled (and updated_at: the profile shows the flag).
void setEnabledFlag(Queryable& db, const std::string& userId, bool enabled, std::int64_t now);

// ---------------------------------------------------------------- recovery codes

// Replaces the user's codes by `hashes` (recoveryCodeHash of each).
void replaceRecoveryCodes(Queryable& db, const std::string& userId,
                          const std::vector<std::string>& hashes, std::int64_t now);
// Marks the code used; false when it is unknown or used already.
bool consumeRecoveryCode(Queryable& db, const std::string& userId, const std::string& hash,
                         std::int64_t now);
std::int64_t unusedRecoveryCodes(Queryable& db, const std::string& userId);

// ---------------------------------------------------------------- challenges

struct ChallengeRow {
  std::string idHash;
  std::string userId;
  bool remember = false;
  std::int64_t createdAt = 0;
  std::int64_t expiresAt = 0;
  std::int64_t failures = 0;
  std::optional<std::string> resendCodeHash;
  std::optional<std::int64_t> resendExpiresAt;
  std::optional<std::int64_t> lastResendAt;
  std::optional<std::int64_t> usedAt;
};

void insertChallenge(Queryable& db, const ChallengeRow& row);
std::optional<ChallengeRow> findChallenge(Queryable& db, const std::string& idHash);
// Counts one wrong code on a challenge still open (unused, under
// `maxFailures`); returns the new count, or nullopt when it was not open.
std::optional<std::int64_t> recordFailure(Queryable& db, const std::string& idHash,
                                          std::int64_t maxFailures);
// Marks an open challenge (unused, unexpired at `now`, under `maxFailures`)
// used; false when another request did first or it is no longer open.
bool markUsed(Queryable& db, const std::string& idHash, std::int64_t now, std::int64_t maxFailures);
// Stores a new e-mailed code on an open challenge whose last resend was at
// or before `notAfter` (or never); false otherwise.
bool storeResendCode(Queryable& db, const std::string& idHash, const std::string& codeHash,
                     std::int64_t codeExpiresAt, std::int64_t now, std::int64_t notAfter,
                     std::int64_t maxFailures);
// Wrong codes entered on the user's challenges created after `since`, and
// when the oldest of those challenges (with a wrong code) was created.
struct FailureCount {
  std::int64_t total = 0;
  std::int64_t oldestCreatedAt = 0;  // 0 when total is 0
};
FailureCount failuresSince(Queryable& db, const std::string& userId, std::int64_t since);
// Deletes challenges that expired before `before`; returns how many.
std::int64_t purgeChallenges(Queryable& db, std::int64_t before);

}  // namespace rapport::host::accounts::twofactor::store
