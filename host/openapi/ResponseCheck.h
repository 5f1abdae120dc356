// api.check_responses (tests and development): every 2xx answer of a
// described route must be what its description says: the success status,
// `data` matching the route's data schema (absent when it describes none),
// and the pagination block when the route is paged. The Pipeline turns a
// mismatch into a 500 whose log line names it, so a description that drifts
// from the code fails the end-to-end tests that call the route.
#pragma once

#include <string>

#include "http/Router.h"
#include "openapi/ApiSchemas.h"
#include "rapport/http.h"

namespace rapport::host {

// Empty when `response` agrees with `route`'s description (or the route has
// none, or the status is not 2xx); otherwise what disagrees.
std::string responseMismatch(const Route& route, const rapport::Response& response,
                             const ApiSchemas& schemas);

}  // namespace rapport::host
