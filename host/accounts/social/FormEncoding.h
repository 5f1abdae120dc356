// application/x-www-form-urlencoded and query strings for OAuth requests.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace rapport::host::accounts::social {

using FormFields = std::vector<std::pair<std::string, std::string>>;

// name=value&name=value, each part percent-encoded (http/UrlCoding.h).
std::string formEncode(const FormFields& fields);

}  // namespace rapport::host::accounts::social
