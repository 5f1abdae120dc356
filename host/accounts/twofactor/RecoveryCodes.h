// Recovery codes (decisions §4): 8 single-use codes shown once when 2FA is
// turned on (and when they are regenerated), each 10 characters from an
// alphabet without look-alikes (no 0/o, 1/i/l), shown as "xxxxx-xxxxx".
// About 49 bits each, so a salted SHA-256 is enough to store them: the hash
// is what the database keeps, never the code.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rapport::host::accounts::twofactor {

inline constexpr int kRecoveryCodeCount = 8;
inline constexpr std::size_t kRecoveryCodeLength = 10;  // without the dash

// kRecoveryCodeCount fresh codes from the CSPRNG, in display form.
std::vector<std::string> newRecoveryCodes();

// The code as stored and compared: lower case, dashes and spaces dropped.
// nullopt when what remains is not 10 characters of the alphabet.
std::optional<std::string> normaliseRecoveryCode(const std::string& code);

// SHA-256 hex of the normalised code, salted with the user id so equal
// codes of two users never share a hash.
std::string recoveryCodeHash(const std::string& userId, const std::string& normalised);

}  // namespace rapport::host::accounts::twofactor
