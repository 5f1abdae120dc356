// X-Request-Id: the id that ties a response to its log lines.
#pragma once

#include <string>

#include "rapport/http.h"

namespace rapport::host {

// The client's X-Request-Id when it is 1 to 64 characters of [A-Za-z0-9._-]
// (safe to log and echo), otherwise a new random id.
std::string requestIdFor(const rapport::Headers& headers);

}  // namespace rapport::host
