// The password-reset mail (purpose "password-reset"): the token, the
// address it is for, how long it is valid, and a link when the operator set
// auth.reset_url (a template with {token} and {email}, both URL-encoded).
#pragma once

#include <cstdint>
#include <string>

#include "mail/Letter.h"

namespace rapport::host::accounts::reset {

// `urlTemplate` empty: the mail shows the token to paste, without a link.
mail::Letter resetLetter(const std::string& to, const std::string& token, std::int64_t ttlSeconds,
                         const std::string& urlTemplate);

// `urlTemplate` with every {token} and {email} replaced by the URL-encoded
// (RFC 3986 unreserved characters kept, everything else %XX) value.
std::string resetLink(const std::string& urlTemplate, const std::string& token,
                      const std::string& email);

}  // namespace rapport::host::accounts::reset
