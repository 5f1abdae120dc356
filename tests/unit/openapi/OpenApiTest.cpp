// host/openapi: the schema check behind api.check_responses (each keyword it
// understands, accepting and refusing), the response check (status, data,
// meta), Router::describe's refusals, the statuses the document derives for
// a route, and the document itself (every route, deterministic, the
// envelope around the described data, public routes without security).
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <string>

#include "http/Router.h"
#include "openapi/ApiSchemas.h"
#include "openapi/OpenApiDocument.h"
#include "openapi/ResponseCheck.h"
#include "openapi/SchemaCheck.h"
#include "rapport/api_doc.h"

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
    router.add("GET", "/v1/plain", echo, {}, "things");
    router.describe("POST", "/v1/things",
                    {.status = 201, .data = schema::object({{"id", schema::id("thg_")}}, {"id"})},
                    "things");
    router.describe("GET", "/v1/things", {.data = schema::arrayOf(schema::string()), .paged = true},
                    "things");
    ApiSchemas schemas;
    const auto& post = *router.match("POST", "/v1/things").route;
    const auto& list = *router.match("GET", "/v1/things").route;
    const auto& plain = *router.match("GET", "/v1/plain").route;
    using rapport::Response;
    auto check = [&](const rapport::host::Route& route, const Response& r) {
      return rapport::host::responseMismatch(route, r, schemas);
    };
    CPPUNIT_ASSERT_EQUAL(std::string(),
                         check(post, Response::created(Json::object({{"id", "thg_1"}}))));
    CPPUNIT_ASSERT_EQUAL(std::string("status 200, described 201"),
                         check(post, Response::ok(Json::object({{"id", "thg_1"}}))));
    CPPUNIT_ASSERT_EQUAL(std::string("data.id: \"x\" does not match ^thg_"),
                         check(post, Response::created(Json::object({{"id", "x"}}))));
    CPPUNIT_ASSERT(check(post, Response::messageOnly("Done.", 201)).rfind("no data", 0) == 0);
    // Errors are the host's envelope: not checked here.
    CPPUNIT_ASSERT_EQUAL(std::string(), check(post, Response::messageOnly("No.", 409)));
    const Json meta =
        Json::object({{"current_page", 1}, {"per_page", 20}, {"total", 0}, {"last_page", 1}});
    CPPUNIT_ASSERT_EQUAL(std::string(), check(list, Response::list(Json::array(), meta)));
    CPPUNIT_ASSERT_EQUAL(std::string("no meta on a paged route"),
                         check(list, Response::ok(Json::array())));
    CPPUNIT_ASSERT_EQUAL(
        std::string("meta: the required property \"last_page\" is missing"),
        check(list,
              Response::list(Json::array(),
                             Json::object({{"current_page", 1}, {"per_page", 20}, {"total", 0}}))));
    // An undescribed route is not checked.
    CPPUNIT_ASSERT_EQUAL(std::string(), check(plain, Response::ok(Json(3))));
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
    router.add("PATCH", "/v1/things/{id}", echo, admins, "t");
    router.add("GET", "/v1/things", echo, {}, "t");
    router.describe("PATCH", "/v1/things/{id}", {.body = schema::anyObject(), .errors = {409}},
                    "t");
    router.describe("GET", "/v1/things", {.data = schema::anyObject(), .paged = true}, "t");
    auto statuses = [&](const char* method, const char* path) {
      return rapport::host::routeErrorStatuses(*router.match(method, path).route);
    };
    CPPUNIT_ASSERT((statuses("GET", "/v1/open") == std::vector<int>{429, 500, 503}));
    CPPUNIT_ASSERT((statuses("PATCH", "/v1/things/x") ==
                    std::vector<int>{400, 401, 403, 404, 409, 413, 422, 429, 500, 503}));
    CPPUNIT_ASSERT((statuses("GET", "/v1/things") == std::vector<int>{401, 422, 429, 500, 503}));
  }

  void testDocument() {
    Router router;
    rapport::RouteOptions open;
    open.access = rapport::Access::Public;
    router.add("GET", "/v1/things/{id}", echo, {}, "things");
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
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(OpenApiTest);
