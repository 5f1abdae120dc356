// api.check_responses (tests and development): every answer of a route,
// whatever its status, must be one the API document declares for the
// operation: a status it lists (an undeclared one, error or not, is a
// mismatch), the headers it marks required, and a body matching the
// answer's schema (none when it declares no content). The success answer of
// an enveloped route that describes no data must not send `data`. The
// Pipeline turns a mismatch into a 500 whose log line names it, so a
// document that drifts from the code fails the end-to-end tests that call
// the route (they all run with the check on).
#pragma once

#include <string>

#include "http/Exchange.h"
#include "http/Router.h"
#include "openapi/OpenApiDocument.h"

namespace rapport::host {

// Empty when `response` agrees with `route`'s operation in `document`;
// otherwise what disagrees ("status 418 is not declared (declared: 200,
// 401, ...)", "data.tags.0: expected string, got integer").
std::string responseMismatch(const ApiDocument& document, const Route& route,
                             const RawResponse& response);

}  // namespace rapport::host
