// TOTP (RFC 6238) as two-factor login uses it (decisions §4): HMAC-SHA-1,
// 30-second steps from the Unix epoch, 6 digits, one step of drift either
// way. The arithmetic is liboath's; this file only fixes the parameters,
// compares in constant time, and reports WHICH step matched so the caller
// can refuse a replay (a code whose step is not after the last accepted one).
//
// Secrets are 20 random bytes (160 bits, RFC 4226's recommendation), given
// to the user as base32 without padding (32 characters), the form
// authenticator apps read from the otpauth URI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rapport::host::accounts::twofactor {

inline constexpr int kTotpPeriod = 30;       // seconds per step
inline constexpr int kTotpDigits = 6;        // digits per code
inline constexpr int kTotpDrift = 1;         // steps accepted before and after the current one
inline constexpr int kTotpSecretBytes = 20;  // 160 bits

// A fresh secret from the CSPRNG, base32 (upper case, no padding).
std::string newTotpSecret();

// The time step `unixSeconds` falls in.
std::int64_t totpStep(std::int64_t unixSeconds);

// The step whose code `code` is, among the current step of `unixSeconds`
// and its neighbours (kTotpDrift), or nullopt when it is none of them or
// is not 6 digits. Throws std::runtime_error when `secretBase32` does not
// decode (a corrupt stored secret: a server fault, never the user's).
std::optional<std::int64_t> matchTotp(const std::string& secretBase32, const std::string& code,
                                      std::int64_t unixSeconds);

// otpauth://totp/Rapport:<email>?secret=..&issuer=Rapport&algorithm=SHA1&digits=6&period=30
// (decisions §4), the label percent-encoded (RFC 3986 unreserved kept).
std::string otpauthUri(const std::string& email, const std::string& secretBase32);

// True when `code` is exactly 6 ASCII digits.
bool isSixDigits(const std::string& code);

}  // namespace rapport::host::accounts::twofactor
