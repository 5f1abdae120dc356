// GET /v1/openapi.json (public): the API document of this server, as
// OpenApiDocument.h builds it, written as it is (no envelope) so that tools
// (code generators, Swagger UI, validators) read it directly.
#pragma once

#include "http/Router.h"
#include "openapi/OpenApiDocument.h"

namespace rapport::host {

// Register it after every other route: the document is built once, at the
// first request, from the routes registered by then. `document` must
// outlive the route.
void registerOpenApiRoute(Router& router, const ApiDocument& document);

}  // namespace rapport::host
