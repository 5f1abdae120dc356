// What the password reset does about linked social-login identities and the
// e-mail address (docs/accounts.md, "Password reset"; issue 21):
//   - the reset mail names the providers linked to the account, so an owner
//     who finds one they never linked knows it can sign in;
//   - reset-password with `remove_identities: true` unlinks every one of
//     them in the reset's transaction;
//   - a reset completed with the mailed token proves the address (it
//     becomes verified, docs/accounts.md "E-mail verification").
// Kept apart from PasswordReset so the reset flow itself stays small.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mail/Letter.h"
#include "rapport/db.h"

namespace rapport::host::accounts::reset {

// "Google", "GitHub", "Microsoft" (the name as written for people).
std::string providerDisplayName(const std::string& provider);

// Adds a paragraph naming `providers` to the reset letter (nothing when empty).
void mentionLinkedProviders(mail::Letter& letter, const std::vector<std::string>& providers);

// The linked providers of `userId` (for the mail).
std::vector<std::string> linkedProviders(Queryable& db, const std::string& userId);

// In the reset's transaction: the address the token was mailed to is proved,
// and, when `removeIdentities`, every linked identity is unlinked. Returns
// how many identities were unlinked.
std::int64_t afterResetByEmail(Queryable& tx, const std::string& userId,
                               const std::string& emailLower, bool removeIdentities,
                               std::int64_t now);

}  // namespace rapport::host::accounts::reset
