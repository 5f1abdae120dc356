#include "accounts/twofactor/CodeText.h"

#include <openssl/rand.h>

#include <stdexcept>

namespace rapport::host::accounts::twofactor {

std::string randomCode(std::string_view alphabet, std::size_t count) {
  if (alphabet.empty() || alphabet.size() > 256) throw std::invalid_argument("bad code alphabet");
  const unsigned limit = 256 - 256 % alphabet.size();
  std::string out;
  unsigned char buffer[32];
  while (out.size() < count) {
    if (RAND_bytes(buffer, sizeof buffer) != 1) throw std::runtime_error("RAND_bytes failed");
    for (unsigned char b : buffer) {
      if (b < limit && out.size() < count) out.push_back(alphabet[b % alphabet.size()]);
    }
  }
  return out;
}

std::optional<std::string> withoutSpaces(const std::optional<std::string>& code) {
  if (!code) return std::nullopt;
  std::string out;
  for (char c : *code) {
    if (c != ' ') out.push_back(c);
  }
  return out;
}

}  // namespace rapport::host::accounts::twofactor
