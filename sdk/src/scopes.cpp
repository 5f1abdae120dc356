// API key scopes: what a route needs and what a key's list grants.
#include "rapport/scopes.h"

#include <algorithm>

#include "rapport/error.h"

namespace rapport {
namespace {

constexpr std::size_t kMaxNameLength = 50;

bool isNameChar(char c, bool first) {
  if (c >= 'a' && c <= 'z') return true;
  if (first) return false;
  return (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool isName(std::string_view text) {
  if (text.empty() || text.size() > kMaxNameLength) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!isNameChar(text[i], i == 0)) return false;
  }
  return true;
}

bool holds(const std::vector<std::string>& held, std::string_view scope) {
  return std::find(held.begin(), held.end(), scope) != held.end();
}

}  // namespace

std::string requiredScope(std::string_view declared, std::string_view method) {
  if (declared.empty() || declared.find(':') != std::string_view::npos || declared == kEveryScope ||
      declared == kAnyApiKey) {
    return std::string(declared);
  }
  return std::string(declared) + (method == "GET" || method == "HEAD" ? ":read" : ":write");
}

bool grantsScope(const std::vector<std::string>& held, std::string_view needed) {
  if (needed.empty()) return false;
  if (needed == kAnyApiKey || holds(held, kEveryScope) || holds(held, needed)) return true;
  constexpr std::string_view kRead = ":read";
  if (needed.size() > kRead.size() && needed.ends_with(kRead)) {
    const std::string_view resource = needed.substr(0, needed.size() - kRead.size());
    return holds(held, std::string(resource) + ":write");
  }
  return false;
}

void requireScope(const Identity& identity, std::string_view needed) {
  if (!identity.isApiKey() || grantsScope(identity.scopes, needed)) return;
  throw Error::forbidden("This API key lacks the scope " + std::string(needed) + ".");
}

bool isValidScopeDeclaration(std::string_view declared) {
  if (declared.empty() || declared == kAnyApiKey || declared == kEveryScope) return true;
  const std::size_t colon = declared.find(':');
  if (colon == std::string_view::npos) return isName(declared);
  return isName(declared.substr(0, colon)) && isName(declared.substr(colon + 1));
}

}  // namespace rapport
