// The bearer token of a request's Authorization header.
#pragma once

#include <string>

#include "rapport/http.h"

namespace rapport::host {

// "Bearer <token>" with a case-insensitive scheme and surrounding spaces
// trimmed; empty when the header is absent or of another scheme.
std::string bearerToken(const rapport::Headers& headers);

}  // namespace rapport::host
