#include "accounts/passwords/CommonPasswords.h"

#include <algorithm>
#include <string>

#include "accounts/passwords/CommonPasswordList.h"
#include "rapport/validation.h"

namespace rapport::host::accounts::passwords {

namespace {

// The generator keeps nothing shorter or longer (the length rule refuses
// those first), so such a password needs no search.
constexpr std::size_t kMinListed = 8;
constexpr std::size_t kMaxListed = 128;

}  // namespace

bool isCommon(std::string_view password) {
  if (password.size() < kMinListed || password.size() > kMaxListed * 4) return false;
  const std::string lowered = rapport::toLower(password);
  const std::string_view* first = generated::kCommonPasswords;
  const std::string_view* last = first + generated::kCommonPasswordCount;
  // std::string_view compares bytes as unsigned char, the generator's order.
  return std::binary_search(first, last, std::string_view(lowered));
}

std::size_t commonCount() {
  return generated::kCommonPasswordCount;
}

}  // namespace rapport::host::accounts::passwords
