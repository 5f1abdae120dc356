#include "openapi/OpenApiRoute.h"

#include <memory>
#include <mutex>

#include "openapi/OpenApiDocument.h"
#include "rapport/api_doc.h"

namespace rapport::host {
namespace {

// Built once: routes never change while serving, and the document is
// about 100 KiB of JSON.
struct DocumentCache {
  std::once_flag built;
  rapport::Json document;
};

}  // namespace

void registerOpenApiRoute(Router& router, const ApiSchemas& schemas,
                          const ConditionalRoutes* conditions) {
  auto cache = std::make_shared<DocumentCache>();
  rapport::RouteOptions options;
  options.access = rapport::Access::Public;
  router.add(
      "GET", "/v1/openapi.json",
      [cache, &router, &schemas, conditions](const rapport::Request&) {
        std::call_once(cache->built,
                       [&] { cache->document = openApiDocument(router, schemas, conditions); });
        return rapport::Response::ok(cache->document);
      },
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
