#include "accounts/social/FormEncoding.h"

#include "http/UrlCoding.h"

namespace rapport::host::accounts::social {

std::string formEncode(const FormFields& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out.push_back('&');
    out += percentEncode(name) + "=" + percentEncode(value);
  }
  return out;
}

}  // namespace rapport::host::accounts::social
