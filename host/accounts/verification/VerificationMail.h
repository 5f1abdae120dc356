// The e-mail verification mail (purpose "email-verification"): the token,
// the address it proves, how long it is valid, and a link when the operator
// set auth.email_verification_url (a template with {token} and {email}, both
// URL-encoded, as auth.reset_url).
#pragma once

#include <cstdint>
#include <string>

#include "mail/Letter.h"

namespace rapport::host::accounts::verification {

// `urlTemplate` empty: the mail shows the token to paste, without a link.
mail::Letter verificationLetter(const std::string& to, const std::string& token,
                                std::int64_t ttlSeconds, const std::string& urlTemplate);

// "24 hours", "1 hour", "30 minutes": whole hours when the time is one,
// minutes (rounded up) otherwise; the mail never promises more than the token has.
std::string verificationValidity(std::int64_t ttlSeconds);

}  // namespace rapport::host::accounts::verification
