#include "openapi/OpenApiRoute.h"

#include "rapport/api_doc.h"
#include "rapport/scopes.h"

namespace rapport::host {
namespace {

rapport::Response documentFor(const ApiDocument& document, rapport::Queryable& db,
                              const rapport::Request& request) {
  const rapport::Identity& caller = request.identity;
  rapport::Response response =
      caller.authenticated && !caller.companyId.empty()
          ? rapport::Response::ok(document.forCompany(db, caller.companyId))
          : rapport::Response::ok(document.get());
  // The answer depends on the token: private to its caller, and never a
  // cached copy for another Authorization.
  response.withHeader("Cache-Control", "private").withHeader("Vary", "Authorization");
  return response;
}

}  // namespace

void registerOpenApiRoute(Router& router, const ApiDocument& document, rapport::Queryable& db) {
  rapport::RouteOptions options;
  options.access = rapport::Access::Public;
  options.scope = std::string(rapport::kAnyApiKey);  // a key reads its company's document
  router.add(
      "GET", "/v1/openapi.json",
      [&document, &db](const rapport::Request& request) {
        return documentFor(document, db, request);
      },
      options, "host", RouteBody::DataOnly);
  router.describe(
      "GET", "/v1/openapi.json",
      {.summary = "Get this API's OpenAPI 3.1 document",
       .description =
           "Generated from the routes of the enabled modules; the body is the document itself, "
           "without the envelope. With a valid bearer token, each record schema's "
           "`custom_fields` describes the custom fields of the token's company; without one, "
           "`custom_fields` is a free object. Answered `Cache-Control: private` with `Vary: "
           "Authorization`.",
       .tag = "meta",
       .data = rapport::schema::anyObject("An OpenAPI 3.1 document.")},
      "host");
}

}  // namespace rapport::host
