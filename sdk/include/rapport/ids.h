// Identifiers and random secrets.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "rapport/export.h"

namespace rapport {

// Prefix plus 26 lower-case base32 characters of 128 random bits from the
// operating system's CSPRNG: unguessable and never reused. newId("cont_").
RAPPORT_SDK_API std::string newId(std::string_view prefix);
// True when `id` starts with `prefix` and has a non-empty suffix.
RAPPORT_SDK_API bool hasPrefix(std::string_view id, std::string_view prefix);
// `bytes` random bytes from the CSPRNG, encoded base64url without padding.
RAPPORT_SDK_API std::string randomToken(std::size_t bytes);
// Lower-case hex SHA-256 of `text` (for storing high-entropy tokens hashed).
RAPPORT_SDK_API std::string sha256Hex(std::string_view text);
// Constant-time comparison of two strings.
RAPPORT_SDK_API bool constantTimeEquals(std::string_view a, std::string_view b);

}  // namespace rapport
