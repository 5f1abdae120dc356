// Common passwords, refused as new passwords (422 on `password` at register,
// password change and password reset; see PasswordRules.h).
//
// The list is generated at build time from Debian's python3-zxcvbn
// (zxcvbn's FREQUENCY_LISTS['passwords']: the 30,000 most frequent passwords
// of Mark Burnett's / Xato's leaked-password corpus, as zxcvbn ships them
// under the MIT licence). Nothing of it is committed to this repository:
// generate_common_passwords.py writes common_passwords.gen.cpp into the build
// folder. Only the entries a new password could equal are kept (8 to 128
// characters): 11,611 of them. docs/accounts.md ("Passwords") says more.
//
// Threading: read-only data, safe from any thread.
#pragma once

#include <cstddef>
#include <string_view>

namespace rapport::host::accounts::passwords {

// True when `password`, compared case-insensitively (ASCII), is on the list.
bool isCommon(std::string_view password);

// How many passwords the list holds.
std::size_t commonCount();

}  // namespace rapport::host::accounts::passwords
