// The API document (OpenAPI 3.1), generated from what is registered: every
// route of the Router (the host's and every enabled module's, third-party
// ones included), with the descriptions modules gave (rapport/api_doc.h)
// and what the host knows itself: path parameters, bearer security, the
// envelope, the rate-limit headers and the errors of the request path
// (docs/openapi.md).
#pragma once

#include <vector>

#include "http/Router.h"
#include "openapi/ApiSchemas.h"
#include "rapport/json.h"

namespace rapport::host {

class ConditionalRoutes;

// The statuses a route can answer besides its success, in order: those the
// host's request path derives from the route, then the route's own.
std::vector<int> routeErrorStatuses(const Route& route);

// The whole document. Deterministic: the same routes give the same bytes.
// `conditions` (may be null) adds the records' ETag, If-Match and
// If-None-Match; every authenticated POST gets the Idempotency-Key header.
rapport::Json openApiDocument(const Router& router, const ApiSchemas& schemas,
                              const ConditionalRoutes* conditions = nullptr);

}  // namespace rapport::host
