// host/openapi: the schema check behind api.check_responses (each keyword it
// understands, accepting and refusing), the response check (every status,
// declared or not, the body of each, required headers), Router::describe's
// and describeExtra's refusals, the statuses the document derives for a
// route, and the document itself (every route, deterministic, the envelope
// around the described data, public routes without security, servers,
// tags, descriptions, and what RouteDocExtra adds).
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "http/Router.h"
#include "openapi/ApiSchemas.h"
#include "openapi/OpenApiDocument.h"
#include "openapi/ResponseCheck.h"
#include "openapi/SchemaCheck.h"
#include "rapport/api_doc.h"
#include "rapport/scopes.h"

using rapport::Json;
using rapport::RouteDoc;
using rapport::host::ApiSchemas;
using rapport::host::Router;
namespace schema = rapport::schema;

namespace {

rapport::Response echo(const rapport::Request&) {
  return rapport::Response::ok(Json::object());
}

std::string mismatch(const Json& value, const Json& s, const ApiSchemas& schemas = ApiSchemas()) {
  return rapport::host::schemaMismatch(value, s, schemas, "data");
}

Json contactSchema() {
  return schema::object({{"id", schema::id("cont_")},
                         {"name", schema::text(5)},
                         {"email", schema::nullable(schema::email())},
                         {"tags", schema::arrayOf(schema::string())},
                         {"value", schema::money()},
                         {"stage", schema::enumOf({"open", "won"})},
                         {"created_at", schema::timestamp()},
                         {"due", schema::nullable(schema::date())}},
                        {"id", "name", "tags"});
}

Json contact() {
  return Json::object({{"id", "cont_1"},
                       {"name", "Ada"},
                       {"email", nullptr},
                       {"tags", Json(Json::Array{Json("a")})},
                       {"value", 0},
                       {"stage", "won"},
                       {"created_at", "2026-11-24T10:00:00.123Z"},
                       {"due", "2026-12-01"}});
}

}  // namespace

class OpenApiTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(OpenApiTest);
  CPPUNIT_TEST(testSchemaCheckAcceptsAMatchingValue);
  CPPUNIT_TEST(testSchemaCheckNamesEachMismatch);
  CPPUNIT_TEST(testSchemaCheckFollowsRefsAndAnyOf);
  CPPUNIT_TEST(testResponseCheck);
  CPPUNIT_TEST(testDescribeRefusals);
  CPPUNIT_TEST(testSchemaNameClash);
  CPPUNIT_TEST(testDerivedErrorStatuses);
  CPPUNIT_TEST(testDocument);
  CPPUNIT_TEST(testWhatRouteDocCannotSay);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testSchemaCheckAcceptsAMatchingValue() {
    CPPUNIT_ASSERT_EQUAL(std::string(), mismatch(contact(), contactSchema()));
    Json withEmail = contact();
    withEmail.set("email", "ada@example.com");
    CPPUNIT_ASSERT_EQUAL(std::string(), mismatch(withEmail, contactSchema()));
    // Unlisted properties are allowed (answers may grow).
    withEmail.set("extra", 1);
    CPPUNIT_ASSERT_EQUAL(std::string(), mismatch(withEmail, contactSchema()));
  }

  void testSchemaCheckNamesEachMismatch() {
    auto with = [](const char* key, Json value) {
      Json c = contact();
      c.set(key, std::move(value));
      return c;
    };
    CPPUNIT_ASSERT_EQUAL(std::string("data.id: \"comp_1\" does not match ^cont_"),
                         mismatch(with("id", "comp_1"), contactSchema()));
    CPPUNIT_ASSERT_EQUAL(std::string("data.name: longer than 5 characters"),
                         mismatch(with("name", "Adalovelace"), contactSchema()));
    CPPUNIT_ASSERT_EQUAL(std::string("data.name: shorter than 1 characters"),
                         mismatch(with("name", ""), contactSchema()));
    // Characters, not bytes: five two-byte letters fit.
    CPPUNIT_ASSERT_EQUAL(std::string(), mismatch(with("name", "ééééé"), contactSchema()));
    CPPUNIT_ASSERT_EQUAL(std::string("data.email: \"nope\" is not a email"),
                         mismatch(with("email", "nope"), contactSchema()));
    CPPUNIT_ASSERT_EQUAL(std::string("data.tags.0: expected string, got integer"),
                         mismatch(with("tags", Json(Json::Array{Json(1)})), contactSchema()));
    CPPUNIT_ASSERT_EQUAL(std::string("data.value: -1 is below 0"),
                         mismatch(with("value", -1), contactSchema()));
    CPPUNIT_ASSERT_EQUAL(std::string("data.stage: \"lost\" is not one of [\"open\",\"won\"]"),
                         mismatch(with("stage", "lost"), contactSchema()));
    CPPUNIT_ASSERT_EQUAL(std::string("data.created_at: \"2026-11-24 10:00\" is not a date-time"),
                         mismatch(with("created_at", "2026-11-24 10:00"), contactSchema()));
    CPPUNIT_ASSERT_EQUAL(std::string("data.due: \"24/11/2026\" is not a date"),
                         mismatch(with("due", "24/11/2026"), contactSchema()));
    Json noTags = contact();
    noTags.erase("tags");
    CPPUNIT_ASSERT_EQUAL(std::string("data: the required property \"tags\" is missing"),
                         mismatch(noTags, contactSchema()));
    CPPUNIT_ASSERT_EQUAL(std::string("data: expected object, got array"),
                         mismatch(Json::array(), contactSchema()));
    const Json closed =
        schema::object({{"a", schema::integer()}}).set("additionalProperties", false);
    CPPUNIT_ASSERT_EQUAL(std::string("data: the property \"b\" is not allowed"),
                         mismatch(Json::object({{"a", 1}, {"b", 2}}), closed));
    CPPUNIT_ASSERT_EQUAL(std::string("data: expected one of [\"integer\",\"null\"], got string"),
                         mismatch("x", schema::nullable(schema::integer())));
  }

  void testSchemaCheckFollowsRefsAndAnyOf() {
    ApiSchemas schemas;
    schemas.add("Contact", contactSchema(), "test");
    const Json list = schema::arrayOf(schema::ref("Contact"));
    CPPUNIT_ASSERT_EQUAL(std::string(),
                         mismatch(Json(Json::Array{contact(), contact()}), list, schemas));
    Json bad = contact();
    bad.set("id", 7);
    CPPUNIT_ASSERT_EQUAL(std::string("data.1.id: expected string, got integer"),
                         mismatch(Json(Json::Array{contact(), bad}), list, schemas));
    CPPUNIT_ASSERT_EQUAL(std::string("data: unknown $ref #/components/schemas/Nope"),
                         mismatch(contact(), schema::ref("Nope"), schemas));
    // nullable() of a $ref is an anyOf with null.
    const Json maybe = schema::nullable(schema::ref("Contact"));
    CPPUNIT_ASSERT_EQUAL(std::string(), mismatch(nullptr, maybe, schemas));
    CPPUNIT_ASSERT_EQUAL(std::string(), mismatch(contact(), maybe, schemas));
    CPPUNIT_ASSERT(mismatch("x", maybe, schemas).find("matches none of anyOf") !=
                   std::string::npos);
  }

  void testResponseCheck() {
    Router router;
    router.add("POST", "/v1/things", echo, {}, "things");
    router.add("GET", "/v1/things", echo, {}, "things");
    router.add("POST", "/v1/things/{id}/poke", echo, {}, "things");
    router.add("GET", "/v1/plain", echo, {}, "things");
    router.describe("POST", "/v1/things",
                    {.status = 201, .data = schema::object({{"id", schema::id("thg_")}}, {"id"})},
                    "things");
    router.describe("GET", "/v1/things", {.data = schema::arrayOf(schema::string()), .paged = true},
                    "things");
    router.describe("POST", "/v1/things/{id}/poke", {.summary = "Poke a thing"}, "things");
    ApiSchemas schemas;
    const rapport::host::ApiDocument document(router, schemas, nullptr, nullptr);
    auto check = [&](const char* method, const char* path, int status, const std::string& body,
                     std::vector<std::pair<std::string, std::string>> extra = {}) {
      rapport::host::RawResponse answer;
      answer.status = status;
      answer.body = body;
      answer.headers = {{"X-Request-Id", "req_1"},
                        {"X-RateLimit-Limit", "60"},
                        {"X-RateLimit-Remaining", "59"},
                        {"X-RateLimit-Reset", "1700000000"}};
      for (auto& [name, value] : extra) answer.setHeader(name, value);
      return rapport::host::responseMismatch(document, *router.match(method, path).route, answer);
    };
    auto startsWith = [](const std::string& text, const std::string& prefix) {
      return text.rfind(prefix, 0) == 0;
    };
    // The success: status, body, headers.
    CPPUNIT_ASSERT_EQUAL(std::string(), check("POST", "/v1/things", 201,
                                              R"({"message":"Created.","data":{"id":"thg_1"}})"));
    CPPUNIT_ASSERT(startsWith(check("POST", "/v1/things", 200, R"({"message":"OK."})"),
                              "status 200 is not declared (declared: "));
    CPPUNIT_ASSERT_EQUAL(
        std::string("status 201: body.data.id: \"x\" does not match ^thg_"),
        check("POST", "/v1/things", 201, R"({"message":"Created.","data":{"id":"x"}})"));
    CPPUNIT_ASSERT_EQUAL(std::string("status 201: body: the required property \"data\" is missing"),
                         check("POST", "/v1/things", 201, R"({"message":"Created."})"));
    CPPUNIT_ASSERT_EQUAL(std::string("status 201: the body is not JSON"),
                         check("POST", "/v1/things", 201, "{"));
    // Errors are checked as well: an undeclared one, and a declared one's body.
    CPPUNIT_ASSERT(startsWith(check("POST", "/v1/things", 404, R"({"message":"Not found."})"),
                              "status 404 is not declared"));
    CPPUNIT_ASSERT_EQUAL(std::string(),
                         check("POST", "/v1/things", 401, R"({"message":"Unauthenticated."})"));
    CPPUNIT_ASSERT_EQUAL(std::string("status 401: body: the required property \"message\" is "
                                     "missing"),
                         check("POST", "/v1/things", 401, R"({"error":"no"})"));
    CPPUNIT_ASSERT_EQUAL(std::string("status 422: body: the required property \"errors\" is "
                                     "missing"),
                         check("POST", "/v1/things", 422, R"({"message":"Invalid."})"));
    CPPUNIT_ASSERT_EQUAL(std::string(), check("POST", "/v1/things", 422,
                                              R"({"message":"Invalid.","errors":{"a":["Bad."]}})"));
    // Headers the document marks required, and their integer values.
    CPPUNIT_ASSERT_EQUAL(std::string("status 429: the required header Retry-After is missing"),
                         check("POST", "/v1/things", 429, R"({"message":"Slow down."})"));
    CPPUNIT_ASSERT_EQUAL(
        std::string(),
        check("POST", "/v1/things", 429, R"({"message":"Slow down."})", {{"Retry-After", "3"}}));
    CPPUNIT_ASSERT_EQUAL(
        std::string("status 429: header Retry-After: \"soon\" is not an integer"),
        check("POST", "/v1/things", 429, R"({"message":"Slow down."})", {{"Retry-After", "soon"}}));
    rapport::host::RawResponse bare;
    bare.status = 500;
    bare.body = R"({"message":"Server error."})";
    CPPUNIT_ASSERT_EQUAL(
        std::string("status 500: the required header X-Request-Id is missing"),
        rapport::host::responseMismatch(document, *router.match("POST", "/v1/things").route, bare));
    // A paged list sends its meta.
    const std::string meta = R"("meta":{"current_page":1,"per_page":20,"total":0,"last_page":1})";
    CPPUNIT_ASSERT_EQUAL(std::string(), check("GET", "/v1/things", 200,
                                              R"({"message":"OK.","data":[],)" + meta + "}"));
    CPPUNIT_ASSERT_EQUAL(std::string("status 200: body: the required property \"meta\" is missing"),
                         check("GET", "/v1/things", 200, R"({"message":"OK.","data":[]})"));
    // A message-only route sends no data; a route with a path parameter may answer 404.
    CPPUNIT_ASSERT_EQUAL(std::string(),
                         check("POST", "/v1/things/x/poke", 200, R"({"message":"Poked."})"));
    CPPUNIT_ASSERT_EQUAL(std::string("status 200: data sent, none described"),
                         check("POST", "/v1/things/x/poke", 200, R"({"message":"OK.","data":{}})"));
    CPPUNIT_ASSERT_EQUAL(std::string(),
                         check("POST", "/v1/things/x/poke", 404, R"({"message":"Not found."})"));
    // An undescribed route has the generic envelope, for any status (its
    // "default" answer: nobody said what it answers).
    CPPUNIT_ASSERT_EQUAL(std::string(),
                         check("GET", "/v1/plain", 200, R"({"message":"OK.","data":3})"));
    CPPUNIT_ASSERT_EQUAL(std::string(),
                         check("GET", "/v1/plain", 201, R"({"message":"Created.","data":{}})"));
    CPPUNIT_ASSERT_EQUAL(std::string("status 409: body: the required property \"message\" is "
                                     "missing"),
                         check("GET", "/v1/plain", 409, R"({"error":"Conflict."})"));
  }

  void testDescribeRefusals() {
    Router router;
    router.add("GET", "/v1/things/{id}", echo, {}, "things");
    auto refusal = [&](const std::string& method, const std::string& pattern,
                       const std::string& owner) {
      try {
        router.describe(method, pattern, {.summary = "x"}, owner);
      } catch (const std::logic_error& e) {
        return std::string(e.what());
      }
      return std::string("no refusal");
    };
    CPPUNIT_ASSERT_EQUAL(
        std::string("Route description POST /v1/things/{id} of 'things': no such route"),
        refusal("POST", "/v1/things/{id}", "things"));
    CPPUNIT_ASSERT_EQUAL(std::string("Route description GET /v1/things of 'things': no such route"),
                         refusal("GET", "/v1/things", "things"));
    CPPUNIT_ASSERT_EQUAL(std::string("Route description GET /v1/things/{id} of 'other': the "
                                     "route belongs to 'things'"),
                         refusal("GET", "/v1/things/{id}", "other"));
    // Parameter names aside, the pattern is the registered one.
    CPPUNIT_ASSERT_EQUAL(std::string("no refusal"), refusal("GET", "/v1/things/{key}", "things"));
    CPPUNIT_ASSERT_EQUAL(
        std::string("Route description GET /v1/things/{id} of 'things': described twice"),
        refusal("GET", "/v1/things/{id}", "things"));
    // An extra goes to a described route of its owner, once.
    router.add("GET", "/v1/others", echo, {}, "things");
    auto extraRefusal = [&](const std::string& pattern, const std::string& owner) {
      try {
        router.describeExtra("GET", pattern, {.readsBearerToken = true}, owner);
      } catch (const std::logic_error& e) {
        return std::string(e.what());
      }
      return std::string("no refusal");
    };
    CPPUNIT_ASSERT_EQUAL(std::string("Route extra GET /v1/others of 'things': not described yet"),
                         extraRefusal("/v1/others", "things"));
    CPPUNIT_ASSERT_EQUAL(
        std::string("Route extra GET /v1/things/{id} of 'other': the route belongs to 'things'"),
        extraRefusal("/v1/things/{id}", "other"));
    CPPUNIT_ASSERT_EQUAL(std::string("no refusal"), extraRefusal("/v1/things/{id}", "things"));
    CPPUNIT_ASSERT_EQUAL(std::string("Route extra GET /v1/things/{id} of 'things': given twice"),
                         extraRefusal("/v1/things/{id}", "things"));
  }

  void testSchemaNameClash() {
    ApiSchemas schemas;
    schemas.add("Thing", schema::anyObject(), "a");
    CPPUNIT_ASSERT_THROW_MESSAGE("clash", schemas.add("Thing", schema::anyObject(), "b"),
                                 std::logic_error);
    CPPUNIT_ASSERT_THROW_MESSAGE("host's", schemas.add("Error", schema::anyObject(), "b"),
                                 std::logic_error);
    CPPUNIT_ASSERT_THROW_MESSAGE("name", schemas.add("a b", schema::anyObject(), "b"),
                                 std::logic_error);
    CPPUNIT_ASSERT_THROW_MESSAGE("object", schemas.add("Str", Json("x"), "b"), std::logic_error);
  }

  void testDerivedErrorStatuses() {
    Router router;
    rapport::RouteOptions open;
    open.access = rapport::Access::Public;
    rapport::RouteOptions admins;
    admins.roles = {rapport::Role::Owner, rapport::Role::Admin};
    router.add("GET", "/v1/open", echo, open, "t");
    rapport::RouteOptions openToKeys = open;
    openToKeys.scope = std::string(rapport::kAnyApiKey);
    router.add("GET", "/v1/open/keys", echo, openToKeys, "t");
    router.add("PATCH", "/v1/things/{id}", echo, admins, "t");
    router.add("GET", "/v1/things", echo, {}, "t");
    router.describe("PATCH", "/v1/things/{id}", {.body = schema::anyObject(), .errors = {409}},
                    "t");
    router.describe("GET", "/v1/things", {.data = schema::anyObject(), .paged = true}, "t");
    auto statuses = [&](const char* method, const char* path) {
      return rapport::host::routeErrorStatuses(*router.match(method, path).route);
    };
    // A route that declared no scope refuses API keys (403), public or not.
    CPPUNIT_ASSERT((statuses("GET", "/v1/open") == std::vector<int>{403, 429, 500, 503}));
    CPPUNIT_ASSERT((statuses("GET", "/v1/open/keys") == std::vector<int>{429, 500, 503}));
    CPPUNIT_ASSERT((statuses("PATCH", "/v1/things/x") ==
                    std::vector<int>{400, 401, 403, 404, 409, 413, 422, 429, 500, 503}));
    CPPUNIT_ASSERT(
        (statuses("GET", "/v1/things") == std::vector<int>{401, 403, 422, 429, 500, 503}));
    // The host parses a body sent to any POST, PUT, PATCH or DELETE (400);
    // a public route that reads the token itself answers 401.
    router.add("POST", "/v1/open", echo, open, "t");
    CPPUNIT_ASSERT((statuses("POST", "/v1/open") == std::vector<int>{400, 403, 429, 500, 503}));
    router.describe("POST", "/v1/open", {.summary = "Refresh"}, "t");
    router.describeExtra("POST", "/v1/open", {.readsBearerToken = true}, "t");
    CPPUNIT_ASSERT(
        (statuses("POST", "/v1/open") == std::vector<int>{400, 401, 403, 429, 500, 503}));
  }

  void testDocument() {
    Router router;
    rapport::RouteOptions open;
    open.access = rapport::Access::Public;
    router.add("GET", "/v1/things/{id}", echo, {}, "things");
    router.add("DELETE", "/v1/things/{id}", echo, {.scope = "things"}, "things");
    router.add("POST", "/v1/things", echo, open, "things");
    router.add("GET", "/healthz", echo, open, "host");
    router.describe("GET", "/v1/things/{id}",
                    {.summary = "Get a thing", .data = schema::ref("Thing")}, "things");
    ApiSchemas schemas;
    schemas.add("Thing", schema::object({{"id", schema::string()}}), "things");
    const Json doc = rapport::host::openApiDocument(router, schemas);
    CPPUNIT_ASSERT_EQUAL(doc.dump(), rapport::host::openApiDocument(router, schemas).dump());
    CPPUNIT_ASSERT_EQUAL(std::string("3.1.0"), doc["openapi"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), doc["paths"].size());
    const Json& get = doc["paths"]["/v1/things/{id}"]["get"];
    CPPUNIT_ASSERT_EQUAL(std::string("get_things_by_id"), get["operationId"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Get a thing"), get["summary"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("things"), get["tags"].asArray().at(0).asString());
    CPPUNIT_ASSERT(get.find("security") == nullptr);  // the document's bearer default
    CPPUNIT_ASSERT_EQUAL(std::string("id"), get["parameters"].asArray().at(0)["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("path"), get["parameters"].asArray().at(0)["in"].asString());
    const Json& envelope = get["responses"]["200"]["content"]["application/json"]["schema"];
    CPPUNIT_ASSERT_EQUAL(schema::ref("Thing").dump(), envelope["properties"]["data"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string("#/components/responses/NotFound"),
                         get["responses"]["404"]["$ref"].asString());
    const Json& post = doc["paths"]["/v1/things"]["post"];
    CPPUNIT_ASSERT_EQUAL(std::string("POST /v1/things"), post["summary"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), post["security"].size());
    CPPUNIT_ASSERT(doc["components"]["schemas"].contains("Thing"));
    CPPUNIT_ASSERT(doc["components"]["schemas"].contains("PageMeta"));
    // Every operation says who may call it; the global tags list each used tag.
    CPPUNIT_ASSERT_EQUAL(std::string("Access: a bearer token; any role. API keys: refused."),
                         get["description"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Access: public, no token needed."),
                         post["description"].asString());
    // API keys: the scheme, and the scope of each operation that takes one.
    CPPUNIT_ASSERT_EQUAL(std::string("rk_..."),
                         doc["components"]["securitySchemes"]["apiKey"]["bearerFormat"].asString());
    CPPUNIT_ASSERT(get.find("x-rapport-scope") == nullptr);
    const Json& del = doc["paths"]["/v1/things/{id}"]["delete"];
    CPPUNIT_ASSERT_EQUAL(std::string("things:write"), del["x-rapport-scope"].asString());
    const Json::Array& security = del["security"].asArray();
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), security.size());
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), security.at(0)["bearerAuth"].size());
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), security.at(1)["apiKey"].size());
    CPPUNIT_ASSERT_EQUAL(std::string("/"), doc["servers"].asArray().at(0)["url"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), doc["tags"].size());
    CPPUNIT_ASSERT_EQUAL(std::string("host"), doc["tags"].asArray().at(0)["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Routes of the things module."),
                         doc["tags"].asArray().at(1)["description"].asString());
    // Every answer declares the request-id and rate-limit headers, by reference.
    CPPUNIT_ASSERT_EQUAL(std::string("#/components/headers/X-Request-Id"),
                         get["responses"]["200"]["headers"]["X-Request-Id"]["$ref"].asString());
    CPPUNIT_ASSERT(doc["components"]["headers"]["X-RateLimit-Reset"]["required"].asBool());
    CPPUNIT_ASSERT(
        doc["components"]["responses"]["TooManyRequests"]["headers"].contains("Retry-After"));
  }

  void testWhatRouteDocCannotSay() {
    Router router;
    rapport::RouteOptions open;
    open.access = rapport::Access::Public;
    router.add("POST", "/v1/auth/refresh", echo, open, "auth");
    router.add("GET", "/v1/events", echo, {}, "events");
    router.add("POST", "/v1/things", echo, {}, "things");
    router.add("PATCH", "/v1/things/{id}", echo, {}, "things");
    router.add("GET", "/v1/errors/sample", echo, {}, "host");
    router.describe("POST", "/v1/auth/refresh", {.summary = "Refresh", .errors = {401}}, "auth");
    router.describeExtra("POST", "/v1/auth/refresh", {.readsBearerToken = true}, "auth");
    const Json cursor = schema::object({{"next_cursor", schema::integer()}}, {"next_cursor"});
    router.describe("GET", "/v1/events", {.summary = "Events", .data = schema::anyObject()},
                    "events");
    router.describeExtra("GET", "/v1/events", {.meta = cursor}, "events");
    const Json body =
        schema::object({{"name", schema::text(9)}, {"note", schema::optionalText(9)}}, {"name"});
    router.describe("POST", "/v1/things", {.summary = "Create", .body = body, .status = 201},
                    "things");
    router.describe("PATCH", "/v1/things/{id}",
                    {.summary = "Update", .body = schema::object({{"name", schema::text(9)}})},
                    "things");
    router.describe("GET", "/v1/errors/sample", {.summary = "Sample", .status = 0, .errors = {409}},
                    "host");
    const Json doc = rapport::host::openApiDocument(router, ApiSchemas());
    // A public route that reads the token: bearer security (the default) and 401.
    const Json& refresh = doc["paths"]["/v1/auth/refresh"]["post"];
    CPPUNIT_ASSERT(refresh.find("security") == nullptr);
    CPPUNIT_ASSERT(refresh["responses"].contains("401"));
    // A cursor meta, required.
    const Json& events = doc["paths"]["/v1/events"]["get"]["responses"]["200"]["content"]
                            ["application/json"]["schema"];
    CPPUNIT_ASSERT_EQUAL(cursor.dump(), events["properties"]["meta"].dump());
    CPPUNIT_ASSERT(events["required"].dump().find("\"meta\"") != std::string::npos);
    // A body with required fields is required; one without is not.
    CPPUNIT_ASSERT(doc["paths"]["/v1/things"]["post"]["requestBody"]["required"].asBool());
    CPPUNIT_ASSERT(doc["paths"]["/v1/things/{id}"]["patch"]["requestBody"].find("required") ==
                   nullptr);
    // An optional text field takes "" (and null): no minLength.
    const Json& note = body["properties"]["note"];
    CPPUNIT_ASSERT(note.find("minLength") == nullptr);
    CPPUNIT_ASSERT_EQUAL(std::string(R"(["string","null"])"), note["type"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string(), mismatch(Json(""), note));
    CPPUNIT_ASSERT_EQUAL(std::string(), mismatch(Json(nullptr), note));
    CPPUNIT_ASSERT(!mismatch(Json("0123456789"), note).empty());
    // A route that only answers errors declares no success.
    const Json& sample = doc["paths"]["/v1/errors/sample"]["get"]["responses"];
    CPPUNIT_ASSERT(!sample.contains("200"));
    CPPUNIT_ASSERT(sample.contains("409"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(OpenApiTest);
