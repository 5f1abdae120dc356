// TOTP codes from the oathtool program (Debian package oathtool), an
// implementation independent of the server's: tests never compute codes
// with the code under test.
#pragma once

#include <cstdint>
#include <string>

namespace rapport::test {

// `oathtool --totp -b <secret> --now @<unixSeconds>`: the 6-digit code of
// the 30-second step holding `unixSeconds`. Throws when oathtool fails.
std::string oathCode(const std::string& secretBase32, std::int64_t unixSeconds);

}  // namespace rapport::test
