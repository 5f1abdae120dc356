// The text of the codes a person reads and types (the e-mailed sign-in code,
// recovery codes): drawing them uniformly from an alphabet, and reading them
// back the way authenticator apps and people write them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rapport::host::accounts::twofactor {

// `count` characters of `alphabet` (at most 256 characters), each equally
// likely: CSPRNG bytes at or above the largest multiple of the alphabet's
// size are drawn again.
std::string randomCode(std::string_view alphabet, std::size_t count);

// The code without the spaces inside it ("123 456" -> "123456"); nullopt
// stays nullopt.
std::optional<std::string> withoutSpaces(const std::optional<std::string>& code);

}  // namespace rapport::host::accounts::twofactor
