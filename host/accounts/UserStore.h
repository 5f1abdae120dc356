// SQL for the users table. Functions take the Queryable to run on, so the
// same code serves autocommit reads and the register transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rapport/db.h"
#include "rapport/json.h"

namespace rapport::host::accounts {

struct UserRecord {
  std::string id;
  std::string name;
  std::string email;                        // as given (trimmed)
  std::optional<std::string> passwordHash;  // PHC string; none for password-less users
  bool disabled = false;
  bool twoFactorEnabled = false;
  // When the user proved they receive mail at `email` (a verification link,
  // a reset by e-mail, a sign-up by a provider that vouched for it); none
  // until then, and again after a change of address.
  std::optional<std::int64_t> emailVerifiedAt;
  std::int64_t createdAt = 0;
  std::int64_t updatedAt = 0;
};

namespace users {

// The 422 message on `email` when another user has the address (register,
// profile change).
inline constexpr const char* kEmailTaken = "The email has already been taken.";

// `emailLower` is the lower-cased, trimmed address (the unique key).
std::optional<UserRecord> findByEmail(Queryable& db, const std::string& emailLower);
std::optional<UserRecord> findById(Queryable& db, const std::string& id);
bool emailTaken(Queryable& db, const std::string& emailLower);
// True when a user other than `exceptUserId` has the address (profile change).
bool emailTakenByOther(Queryable& db, const std::string& emailLower,
                       const std::string& exceptUserId);
// Throws DbError (UniqueViolation) when the e-mail was taken meanwhile.
void insert(Queryable& db, const UserRecord& user);

// Writes name and email (email_lower follows) and updated_at; another
// address than the stored one (case-insensitive) clears email_verified_at.
// Throws DbError (UniqueViolation) when the e-mail was taken meanwhile.
void updateProfile(Queryable& db, const UserRecord& user);
// Marks the address verified at `at` when the user still has `emailLower`
// (a proof of an old address proves nothing); an earlier proof is kept.
// True when the user has that address.
bool markEmailVerified(Queryable& db, const std::string& userId, const std::string& emailLower,
                       std::int64_t at);
void updatePasswordHash(Queryable& db, const std::string& userId, const std::string& hash,
                        std::int64_t at);

// {id, name, email, company_id}: the `user` member of token objects.
Json tokenUserJson(const UserRecord& user, const std::string& companyId);

}  // namespace users
}  // namespace rapport::host::accounts
