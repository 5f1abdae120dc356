// When a user's password was last reset by e-mail (users.password_reset_at,
// migration 0010_mailbox_factor), for the rule that a mailbox alone must not
// pass both factors (decisions §4): for kMailboxOnlyWindowSeconds after such
// a reset, a two-factor login refuses the e-mailed code (whoever read the
// reset mail can read that code too) and asks for the authenticator app or a
// recovery code. Functions take the Queryable to run on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rapport/db.h"

namespace rapport::host::accounts::reset {

inline constexpr std::int64_t kMailboxOnlyWindowSeconds = 24 * 3600;

// Records that `userId`'s password was reset by e-mail at `at` (micros), in
// the reset's transaction.
void recordMailedReset(Queryable& db, const std::string& userId, std::int64_t at);

// True when `userId`'s password was reset by e-mail within
// kMailboxOnlyWindowSeconds before `now`.
bool resetByMailRecently(Queryable& db, const std::string& userId, std::int64_t now);

}  // namespace rapport::host::accounts::reset
