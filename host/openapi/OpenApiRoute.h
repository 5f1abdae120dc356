// GET /v1/openapi.json (public): the API document of this server, as
// OpenApiDocument.h builds it, written as it is (no envelope) so that tools
// (code generators, Swagger UI, validators) read it directly.
#pragma once

#include "http/Router.h"
#include "openapi/ApiSchemas.h"

namespace rapport::host {

class ConditionalRoutes;

// Register it after every other route: the document is built once, at the
// first request, from the routes registered by then. `router` and `schemas`
// must outlive the route.
void registerOpenApiRoute(Router& router, const ApiSchemas& schemas,
                          const ConditionalRoutes* conditions);

}  // namespace rapport::host
