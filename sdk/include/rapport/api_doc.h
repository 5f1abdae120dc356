// Route descriptions: what the API document (GET /v1/openapi.json, OpenAPI
// 3.1) says about a module's routes.
//
// A module describes each route it registers, in setup(), after route():
//
//   registry.schema("Product", rapport::schema::object(
//       {{"id", rapport::schema::id("prod_")}, {"name", rapport::schema::string()}},
//       {"id", "name"}));
//   registry.route("GET", "/crm/products/{id}", handler);
//   registry.describe("GET", "/crm/products/{id}",
//                     {.summary = "Get a product", .data = rapport::schema::ref("Product")});
//
// The host adds what it knows itself: the path parameters (from the
// pattern's "{name}" segments), the bearer-token security of an
// Authenticated route, the envelope ({"message", "data", "meta"}), the
// rate-limit and X-Request-Id headers, who may call the route, and the
// errors its request path can answer (400 on a route that takes a body,
// 401, 403 with roles, 404 with path parameters, 410 past a configured
// sunset, 413 and 422 with a body, 422 with a query, 429, 500, 503). A route
// without a description still appears, with a generic envelope. A
// third-party module describes its routes the same way (rapport::Resource
// describes its own).
//
// Schemas are JSON Schema 2020-12, the dialect of OpenAPI 3.1, held as
// rapport::Json. The builders below make the subset Rapport uses; any valid
// JSON Schema object may be passed as well. With `api.check_responses` on
// (tests), the host checks every answer of a route, whatever its status,
// against the document (the status must be one it lists; the body and the
// required headers must match) and answers 500 when it does not, so a
// description that drifts from the code fails the tests (docs/openapi.md
// lists the keywords that check understands).
//
// What RouteDoc cannot say (its members are frozen within a major version)
// goes into a RouteDocExtra, attached with Registry::describeExtra after
// describe(): a `meta` that is not the pagination block (a cursor), or a
// Public route whose handler reads the bearer token itself.
//
// ABI (abi.h): RouteDoc and RouteDocExtra are constructed by modules, so
// their members are frozen within a major version; the builders are
// functions of the SDK library.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rapport/export.h"
#include "rapport/json.h"

namespace rapport {

// One route's description. Every member has a default, so a designated
// initializer names only what the route has.
struct RouteDoc {
  std::string summary = "";      // one line, imperative: "Create a contact"
  std::string description = "";  // optional longer text (CommonMark)
  // Groups operations in the document; empty: the module's name.
  std::string tag = "";
  // An object schema whose properties are the query parameters (each one a
  // string, integer or boolean schema; `required` lists the mandatory ones).
  // Null: the route reads no query.
  Json query = nullptr;
  // The request body (application/json, an object). Null: no body.
  Json body = nullptr;
  // The success status: 200 or 201; 0 for a route that never succeeds
  // (it answers only errors: GET /v1/errors/sample).
  int status = 200;
  // The schema of the envelope's `data` on success. Null: the answer carries
  // only a message.
  Json data = nullptr;
  // True when `meta` is the pagination block (pagination.h pageMeta).
  bool paged = false;
  // Statuses the handler itself answers beyond those the host derives
  // (409 for a duplicate, 404 for a referenced record on a route without a
  // path parameter...), each with its generic description.
  std::vector<int> errors = {};
};

// Since 6.2. More about a described route (Registry::describeExtra).
struct RouteDocExtra {
  // The schema of the envelope's `meta` on success, for a route whose meta
  // is not the pagination block (RouteDoc::paged): GET /v1/events answers
  // {"next_cursor", "has_more"}. Null: none.
  Json meta = nullptr;
  // True for an Access::Public route whose handler reads the bearer token
  // itself and answers 401 without a valid one (POST /v1/auth/refresh): the
  // document requires the token although the router lets the request in.
  bool readsBearerToken = false;
};

// JSON Schema builders. `description` is left out when empty.
namespace schema {

using Properties = std::vector<std::pair<std::string, Json>>;

RAPPORT_SDK_API Json string(const std::string& description = "");
// A string of 1 to `maxLength` characters.
RAPPORT_SDK_API Json text(std::int64_t maxLength, const std::string& description = "");
// Since 6.2. An optional text field of a body, read with
// rapport::optionalText (request_rules.h): a string of at most `maxLength`
// characters, or null; "" (or blank) is accepted and clears the field
// (stored as null). The description says so.
RAPPORT_SDK_API Json optionalText(std::int64_t maxLength, const std::string& description = "");
RAPPORT_SDK_API Json integer(const std::string& description = "");
// An integer within [min, max].
RAPPORT_SDK_API Json integerBetween(std::int64_t min, std::int64_t max,
                                    const std::string& description = "");
// Integer cents, >= 0 (decisions §1).
RAPPORT_SDK_API Json money(const std::string& description = "");
RAPPORT_SDK_API Json boolean(const std::string& description = "");
// "2026-11-24T10:00:00Z" (format date-time).
RAPPORT_SDK_API Json timestamp(const std::string& description = "");
// "2026-11-24" (format date).
RAPPORT_SDK_API Json date(const std::string& description = "");
RAPPORT_SDK_API Json email(const std::string& description = "");
RAPPORT_SDK_API Json url(const std::string& description = "");
// An id with its prefix: "cont_" gives a string matching ^cont_.
RAPPORT_SDK_API Json id(const std::string& prefix, const std::string& description = "");
// One of `values` (strings).
RAPPORT_SDK_API Json enumOf(const std::vector<std::string>& values,
                            const std::string& description = "");
RAPPORT_SDK_API Json arrayOf(Json items, const std::string& description = "");
// An object with these properties, in this order; `required` names the ones
// always present. Other properties are allowed (requests ignore unknown
// fields; responses may grow).
RAPPORT_SDK_API Json object(Properties properties, std::vector<std::string> required = {},
                            const std::string& description = "");
// An object whose properties are not listed (free-form).
RAPPORT_SDK_API Json anyObject(const std::string& description = "");
// The same schema, or null.
RAPPORT_SDK_API Json nullable(Json schema);
// Since 7.0. Any one of `options` ({"anyOf": [...]}).
RAPPORT_SDK_API Json anyOf(std::vector<Json> options, const std::string& description = "");
// A schema registered with Registry::schema (or one of the host's: Error,
// ValidationError, PageMeta).
RAPPORT_SDK_API Json ref(const std::string& name);
// {"id": <idSchema>}: the data of a DELETE.
RAPPORT_SDK_API Json deleted(const std::string& idPrefix);
// The query of a paged list (pagination.h): `page`, `per_page`, `sort` (each
// of `sortFields`, or "-field" for descending; `defaultSort` is written as
// the default), then the route's own `filters`, in order.
RAPPORT_SDK_API Json pageQuery(const std::vector<std::string>& sortFields,
                               const std::string& defaultSort, Properties filters = {});

}  // namespace schema
}  // namespace rapport
