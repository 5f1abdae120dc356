#include "http/BearerToken.h"

#include <algorithm>
#include <cctype>

namespace rapport::host {

std::string bearerToken(const rapport::Headers& headers) {
  auto it = headers.find("Authorization");
  if (it == headers.end()) return {};
  const std::string& value = it->second;
  if (value.size() <= 7) return {};
  std::string scheme = value.substr(0, 7);
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (scheme != "bearer ") return {};
  const std::size_t start = value.find_first_not_of(' ', 7);
  const std::size_t end = value.find_last_not_of(' ');
  return start == std::string::npos ? std::string{} : value.substr(start, end - start + 1);
}

}  // namespace rapport::host
