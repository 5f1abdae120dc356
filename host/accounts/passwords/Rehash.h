// Upgrading a stored password hash at login (argon2 parameters raised by the
// operator: PasswordHasher::needsRehash).
//
// Called after the password was verified. The new hash is stored with an
// autocommit UPDATE that only applies while the row still holds the hash
// that was verified, so a password changed meanwhile is never overwritten,
// and updated_at is left alone (no change the user made). Any failure (no
// hashing slot in time, the database) is logged without the password and
// swallowed: the login goes on with the old hash, upgraded next time.
#pragma once

#include <string>

#include "accounts/AccountsContext.h"

namespace rapport::host::accounts::passwords {

// True when a new hash was stored.
bool upgradeHashIfNeeded(AccountsContext& ctx, const UserRecord& user, const std::string& password);

}  // namespace rapport::host::accounts::passwords
