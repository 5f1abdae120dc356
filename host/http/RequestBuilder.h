// Turns a raw request and its route match into the rapport::Request a module
// handler reads: decoded path parameters and query, the JSON body parsed and
// checked to be an object, the caller's identity.
#pragma once

#include <optional>
#include <string>

#include "http/Exchange.h"
#include "http/Router.h"
#include "rapport/http.h"

namespace rapport::host {

// Throws rapport::Error 404 when a path parameter, and 422 when a query value,
// is not UTF-8 text without NUL (400 for such a query parameter name).
// Throws rapport::Error 400 when a body that must be JSON is not a JSON
// object. An empty body reads as absent (hasBody false, body null), so POST
// actions without input (win, logout, ping) need no "{}". GET and HEAD bodies
// are ignored.
rapport::Request buildRequest(const RawRequest& raw, RouteMatch&& match,
                              const std::string& requestId,
                              const std::optional<rapport::Identity>& identity);

// "v1" for "/v1/crm/contacts"; empty when the first segment is not v<digits>.
std::string versionSegment(const std::string& path);

}  // namespace rapport::host
