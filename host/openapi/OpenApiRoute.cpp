#include "openapi/OpenApiRoute.h"

#include "rapport/api_doc.h"

namespace rapport::host {

void registerOpenApiRoute(Router& router, const ApiDocument& document) {
  rapport::RouteOptions options;
  options.access = rapport::Access::Public;
  router.add(
      "GET", "/v1/openapi.json",
      [&document](const rapport::Request&) { return rapport::Response::ok(document.get()); },
      options, "host", RouteBody::DataOnly);
  router.describe("GET", "/v1/openapi.json",
                  {.summary = "Get this API's OpenAPI 3.1 document",
                   .description = "Generated from the routes of the enabled modules; the body is "
                                  "the document itself, without the envelope.",
                   .tag = "meta",
                   .data = rapport::schema::anyObject("An OpenAPI 3.1 document.")},
                  "host");
}

}  // namespace rapport::host
