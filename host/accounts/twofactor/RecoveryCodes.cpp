#include "accounts/twofactor/RecoveryCodes.h"

#include <stdexcept>
#include <string_view>

#include "accounts/twofactor/CodeText.h"
#include "rapport/ids.h"

namespace rapport::host::accounts::twofactor {

namespace {

// 31 characters: digits 2-9 and the letters without i, l and o.
constexpr std::string_view kAlphabet = "23456789abcdefghjkmnpqrstuvwxyz";

}  // namespace

std::vector<std::string> newRecoveryCodes() {
  std::vector<std::string> codes;
  for (int i = 0; i < kRecoveryCodeCount; ++i) {
    const std::string chars = randomCode(kAlphabet, kRecoveryCodeLength);
    codes.push_back(chars.substr(0, 5) + "-" + chars.substr(5));
  }
  return codes;
}

std::optional<std::string> normaliseRecoveryCode(const std::string& code) {
  std::string out;
  for (char c : code) {
    if (c == '-' || c == ' ') continue;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (kAlphabet.find(c) == std::string_view::npos) return std::nullopt;
    out.push_back(c);
    if (out.size() > kRecoveryCodeLength) return std::nullopt;
  }
  if (out.size() != kRecoveryCodeLength) return std::nullopt;
  return out;
}

std::string recoveryCodeHash(const std::string& userId, const std::string& normalised) {
  return rapport::sha256Hex("recovery:" + userId + ":" + normalised);
}

}  // namespace rapport::host::accounts::twofactor
