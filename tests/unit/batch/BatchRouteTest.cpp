// The batch route (batch/BatchRoute.h) over a Router with stand-in create
// and update handlers: the request each item's handler reads, each kind of
// failure as its item's result, the upsert that lost a race to a concurrent
// create, what the route takes from the POST route, and the refusals at
// registration.
#include <cppunit/extensions/HelperMacros.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "batch/BatchRoute.h"
#include "rapport/error.h"

using rapport::Json;
using rapport::Request;
using rapport::Response;
using namespace rapport::host;

namespace {

// Never asked anything: the matches below read their own map.
class NoDatabase : public rapport::Queryable {
 public:
  rapport::Dialect dialect() const override { return rapport::Dialect::SQLite; }
  rapport::Result query(std::string_view, const rapport::Params&) override {
    throw std::logic_error("no database");
  }
  std::int64_t exec(std::string_view, const rapport::Params&) override {
    throw std::logic_error("no database");
  }
};

// The module the route serves: records by key, and every request its
// handlers saw. A create whose data says "fail" throws what it names.
struct Things {
  std::map<std::string, std::string> idByKey;
  std::vector<Request> seen;
  std::vector<std::string> matchedOn;  // each match's matchOn
  bool raceOnCreate = false;           // a concurrent create of the same key wins first

  Response create(const Request& request) {
    seen.push_back(request);
    const Json& data = request.body;
    if (const Json* fail = data.find("fail")) throwNamed(fail->asString());
    const std::string key = data["key"].asString();
    if (raceOnCreate) {
      idByKey[key] = "thing_winner";
      throw rapport::Error::conflict("A thing with this key already exists.");
    }
    idByKey[key] = "thing_" + key;
    return Response::created(Json::object({{"id", idByKey[key]}}), "Thing created.");
  }

  Response update(const Request& request) {
    seen.push_back(request);
    const std::string& id = request.param("id");
    if (id == "thing_missing") throw rapport::Error::notFound("Thing not found.");
    return Response::ok(Json::object({{"id", id}, {"updated", true}}), "Thing updated.");
  }

  static void throwNamed(const std::string& what) {
    if (what == "422") {
      throw rapport::Error::validation({{"name", {"The name field is required."}}});
    }
    if (what == "busy") throw rapport::DbError(rapport::DbError::Kind::Busy, "lock wait");
    if (what == "lost") throw rapport::DbError(rapport::DbError::Kind::ConnectionLost, "gone");
    if (what == "sql") throw rapport::DbError(rapport::DbError::Kind::Other, "syntax error");
    if (what == "302") throw rapport::Error(302, "Moved.");
    throw std::runtime_error("boom");
  }
};

struct Fixture {
  Router router;
  NoDatabase db;
  std::shared_ptr<Things> things = std::make_shared<Things>();

  explicit Fixture(rapport::RouteOptions options = {}) {
    auto t = things;
    router.add(
        "POST", "/v1/things", [t](const Request& r) { return t->create(r); }, options, "things");
    router.add(
        "PATCH", "/v1/things/{id}", [t](const Request& r) { return t->update(r); }, {}, "things");
  }

  void registerBatch(bool upsert = true) {
    rapport::BatchSpec spec;
    if (upsert) {
      auto t = things;
      spec = {.upsertBy = "key",
              .match = [t](rapport::Queryable&, const std::string& company, const Json& data,
                           const std::string& matchOn) -> std::optional<std::string> {
                if (company != "comp_1") throw std::logic_error("wrong company");
                t->matchedOn.push_back(matchOn);
                // As the engine refuses a field that is not unique.
                if (matchOn == "not_unique") {
                  throw rapport::Error::invalidField("match_on", "The match_on is not unique.");
                }
                const Json* key = data.find("key");
                if (key == nullptr)
                  throw rapport::Error::invalidField("key", "The key field is required.");
                const auto found = t->idByKey.find(key->asString());
                if (found == t->idByKey.end()) return std::nullopt;
                return found->second;
              }};
    }
    registerBatchRoute(router, "/v1/things", std::move(spec), &db, "things");
  }

  // The batch route's answer to `items`.
  Response call(Json::Array items, rapport::Headers headers = {}) {
    return send(Json::object({{"items", Json(std::move(items))}}), std::move(headers));
  }

  // The batch route's answer to `body`.
  Response send(Json body, rapport::Headers headers = {}) {
    const RouteMatch match = router.match("POST", "/v1/things/batch");
    CPPUNIT_ASSERT(match.kind == RouteMatch::Kind::Found);
    Request request;
    request.method = "POST";
    request.path = "/v1/things/batch";
    request.apiVersion = "v1";
    request.requestId = "req_1";
    request.clientAddress = "192.0.2.1";
    request.headers = std::move(headers);
    request.body = std::move(body);
    request.hasBody = true;
    request.identity = {.authenticated = true,
                        .userId = "user_1",
                        .companyId = "comp_1",
                        .role = rapport::Role::Member,
                        .tokenId = "tok_1"};
    return match.route->handler(request);
  }
};

Json item(const std::string& action, Json data, const std::string& id = "") {
  Json out = Json::object({{"action", action}, {"data", std::move(data)}});
  if (!id.empty()) out.set("id", id);
  return out;
}

}  // namespace

class BatchRouteTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(BatchRouteTest);
  CPPUNIT_TEST(testItemRequestsAreBuiltLikeSingleRequests);
  CPPUNIT_TEST(testEachFailureBecomesItsItemsResult);
  CPPUNIT_TEST(testUpsertUpdatesOrCreates);
  CPPUNIT_TEST(testUpsertThatLostARaceUpdatesTheWinner);
  CPPUNIT_TEST(testMatchOnReachesTheMatch);
  CPPUNIT_TEST(testMatchOnRefusals);
  CPPUNIT_TEST(testRouteTakesThePostRoutesAccessAndDocs);
  CPPUNIT_TEST(testRegistrationRefusals);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testItemRequestsAreBuiltLikeSingleRequests() {
    Fixture f;
    f.registerBatch();
    const Response response =
        f.call({item("create", Json::object({{"key", "a"}})),
                item("update", Json::object({{"name", "B"}}), "thing_b")},
               {{"Idempotency-Key", "k1"}, {"If-Match", "\"x\""}, {"Accept-Language", "en"}});
    CPPUNIT_ASSERT_EQUAL(200, response.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Batch processed."), response.message);
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), f.things->seen.size());
    const Request& created = f.things->seen[0];
    CPPUNIT_ASSERT_EQUAL(std::string("POST"), created.method);
    CPPUNIT_ASSERT_EQUAL(std::string("/v1/things"), created.path);
    CPPUNIT_ASSERT(created.pathParams.empty());
    CPPUNIT_ASSERT(created.body == Json::object({{"key", "a"}}));
    CPPUNIT_ASSERT(created.hasBody);
    const Request& updated = f.things->seen[1];
    CPPUNIT_ASSERT_EQUAL(std::string("PATCH"), updated.method);
    CPPUNIT_ASSERT_EQUAL(std::string("/v1/things/thing_b"), updated.path);
    CPPUNIT_ASSERT_EQUAL(std::string("thing_b"), updated.param("id"));
    for (const Request& seen : f.things->seen) {
      CPPUNIT_ASSERT_EQUAL(std::string("req_1"), seen.requestId);
      CPPUNIT_ASSERT_EQUAL(std::string("v1"), seen.apiVersion);
      CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.1"), seen.clientAddress);
      CPPUNIT_ASSERT_EQUAL(std::string("comp_1"), seen.identity.companyId);
      CPPUNIT_ASSERT_EQUAL(std::string("user_1"), seen.identity.userId);
      CPPUNIT_ASSERT(seen.identity.authenticated);
      CPPUNIT_ASSERT(seen.query.empty());
      // The batch's own conditions and key are not the item's.
      CPPUNIT_ASSERT(!seen.header("Idempotency-Key"));
      CPPUNIT_ASSERT(!seen.header("If-Match"));
      CPPUNIT_ASSERT_EQUAL(std::string("en"), *seen.header("Accept-Language"));
    }
    CPPUNIT_ASSERT(
        *response.data ==
        Json(Json::Array{
            Json::object({{"status", 201}, {"data", Json::object({{"id", "thing_a"}})}}),
            Json::object(
                {{"status", 200}, {"data", Json::object({{"id", "thing_b"}, {"updated", true}})}}),
        }));
  }

  void testEachFailureBecomesItsItemsResult() {
    Fixture f;
    f.registerBatch();
    const Response response = f.call({
        item("create", Json::object({{"fail", "422"}})),
        item("create", Json::object({{"fail", "busy"}})),
        item("create", Json::object({{"fail", "lost"}})),
        item("create", Json::object({{"fail", "sql"}})),
        item("create", Json::object({{"fail", "exception"}})),
        item("create", Json::object({{"fail", "302"}})),
        item("update", Json::object(), "thing_missing"),
        item("update", Json::object(), std::string("bad\xff", 4)),
        item("create", Json::object({{"key", "after"}})),
    });
    const std::string unavailable = rapport::Error::genericMessage(503);
    const std::string internal = rapport::Error::genericMessage(500);
    const Json expected(Json::Array{
        Json::object(
            {{"status", 422},
             {"message", "The name field is required."},
             {"errors", Json::object({{"name", Json::Array{"The name field is required."}}})}}),
        Json::object({{"status", 503}, {"message", unavailable}}),
        Json::object({{"status", 503}, {"message", unavailable}}),
        Json::object({{"status", 500}, {"message", internal}}),
        Json::object({{"status", 500}, {"message", internal}}),
        Json::object({{"status", 500}, {"message", internal}}),
        Json::object({{"status", 404}, {"message", "Thing not found."}}),
        Json::object({{"status", 404}, {"message", rapport::Error::genericMessage(404)}}),
        // A failing item stops no other.
        Json::object({{"status", 201}, {"data", Json::object({{"id", "thing_after"}})}}),
    });
    CPPUNIT_ASSERT_EQUAL(expected.dump(), response.data->dump());
  }

  void testUpsertUpdatesOrCreates() {
    Fixture f;
    f.registerBatch();
    f.things->idByKey["old"] = "thing_old";
    const Response response =
        f.call({item("upsert", Json::object({{"key", "old"}})),
                item("upsert", Json::object({{"key", "new"}})),
                item("upsert", Json::object({{"key", "new"}})), item("upsert", Json::object())});
    const Json::Array& results = response.data->asArray();
    CPPUNIT_ASSERT_EQUAL(std::int64_t{200}, results[0]["status"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("thing_old"), results[0]["data"]["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{201}, results[1]["status"].asInt());
    // The record item 1 made is the one item 2 updates.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{200}, results[2]["status"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("thing_new"), results[2]["data"]["id"].asString());
    CPPUNIT_ASSERT(
        results[3] ==
        Json::object(
            {{"status", 422},
             {"message", "The key field is required."},
             {"errors", Json::object({{"key", Json::Array{"The key field is required."}}})}}));
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), f.things->seen.size());  // the 422 ran no handler
  }

  void testUpsertThatLostARaceUpdatesTheWinner() {
    Fixture f;
    f.registerBatch();
    f.things->raceOnCreate = true;
    const Response response = f.call({item("upsert", Json::object({{"key", "k"}}))});
    CPPUNIT_ASSERT_EQUAL(
        Json(Json::Array{Json::object(
                 {{"status", 200},
                  {"data", Json::object({{"id", "thing_winner"}, {"updated", true}})}})})
            .dump(),
        response.data->dump());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), f.things->seen.size());
    CPPUNIT_ASSERT_EQUAL(std::string("POST"), f.things->seen[0].method);
    CPPUNIT_ASSERT_EQUAL(std::string("PATCH"), f.things->seen[1].method);
  }

  // decisions §14: an upsert matches on its own match_on, else the batch's,
  // else the collection's key (an empty matchOn); the race's second match
  // uses the same.
  void testMatchOnReachesTheMatch() {
    Fixture f;
    f.registerBatch();
    f.things->idByKey["old"] = "thing_old";
    const Json own = Json::object(
        {{"action", "upsert"}, {"match_on", "code"}, {"data", Json::object({{"key", "old"}})}});
    const Response response = f.send(
        Json::object({{"match_on", "custom_fields.external_id"},
                      {"items", Json::Array{item("upsert", Json::object({{"key", "old"}})), own,
                                            item("create", Json::object({{"key", "c"}}))}}}));
    const Json::Array& results = response.data->asArray();
    CPPUNIT_ASSERT_EQUAL(std::int64_t{200}, results[0]["status"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{200}, results[1]["status"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{201}, results[2]["status"].asInt());
    // The batch's match_on is asked about first (once), then each upsert's.
    CPPUNIT_ASSERT(
        (f.things->matchedOn == std::vector<std::string>{"custom_fields.external_id",
                                                         "custom_fields.external_id", "code"}));

    Fixture plain;
    plain.registerBatch();
    plain.things->raceOnCreate = true;
    plain.call({item("upsert", Json::object({{"key", "k"}})),
                Json::object({{"action", "upsert"},
                              {"match_on", "code"},
                              {"data", Json::object({{"key", "j"}})}})});
    CPPUNIT_ASSERT((plain.things->matchedOn == std::vector<std::string>{"", "", "code", "code"}));
  }

  // A match_on that is not a (non-empty) string, the batch's or an item's,
  // is a malformed body: one 422, nothing run. One the match refuses: the
  // batch's fails the whole call, an item's only that item.
  void testMatchOnRefusals() {
    using Errors = rapport::FieldErrors;
    // The field errors of the whole call's 422; fails when it answers.
    const auto errorsOf = [](Fixture& f, const Json& body) -> Errors {
      try {
        f.send(body);
      } catch (const rapport::Error& error) {
        CPPUNIT_ASSERT_EQUAL(422, error.status());
        CPPUNIT_ASSERT(f.things->seen.empty());
        return error.errors();
      }
      CPPUNIT_FAIL("no refusal for " + body.dump());
      return {};
    };
    const Json upsert = item("upsert", Json::object({{"key", "a"}}));
    Fixture f;
    f.registerBatch();
    CPPUNIT_ASSERT((errorsOf(f, Json::object({{"match_on", 7}, {"items", Json::Array{upsert}}})) ==
                    Errors{{"match_on", {"The match_on must be a string."}}}));
    CPPUNIT_ASSERT((errorsOf(f, Json::object({{"match_on", ""}, {"items", Json::Array{upsert}}})) ==
                    Errors{{"match_on", {"The match_on must not be empty."}}}));
    CPPUNIT_ASSERT(
        (errorsOf(
             f, Json::object(
                    {{"items", Json::Array{upsert, Json::object({{"action", "upsert"},
                                                                 {"match_on", Json::array()},
                                                                 {"data", Json::object()}})}}})) ==
         Errors{{"items.1.match_on", {"The items.1.match_on must be a string."}}}));
    CPPUNIT_ASSERT(
        (errorsOf(
             f, Json::object({{"items", Json::Array{Json::object({{"action", "create"},
                                                                  {"match_on", "key"},
                                                                  {"data", Json::object()}})}}})) ==
         Errors{{"items.0.match_on", {"The items.0.match_on is only allowed on an upsert."}}}));
    CPPUNIT_ASSERT(f.things->matchedOn.empty());
    // The batch's: refused by the match, nothing runs.
    CPPUNIT_ASSERT(
        (errorsOf(f,
                  Json::object({{"match_on", "not_unique"},
                                {"items", Json::Array{item("create", Json::object()), upsert}}})) ==
         Errors{{"match_on", {"The match_on is not unique."}}}));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), f.things->matchedOn.size());

    // An item's own: that item only.
    Fixture g;
    g.registerBatch();
    const Response response = g.send(
        Json::object({{"match_on", "key"},
                      {"items", Json::Array{Json::object({{"action", "upsert"},
                                                          {"match_on", "not_unique"},
                                                          {"data", Json::object({{"key", "a"}})}}),
                                            upsert}}}));
    CPPUNIT_ASSERT_EQUAL(200, response.status);
    const Json::Array& results = response.data->asArray();
    CPPUNIT_ASSERT(
        results[0] ==
        Json::object({{"status", 422},
                      {"message", "The match_on is not unique."},
                      {"errors",
                       Json::object({{"match_on", Json::Array{"The match_on is not unique."}}})}}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{201}, results[1]["status"].asInt());
  }

  void testRouteTakesThePostRoutesAccessAndDocs() {
    Fixture f({.access = rapport::Access::Authenticated, .roles = {rapport::Role::Owner}});
    f.router.describe("POST", "/v1/things",
                      {.summary = "Create a thing",
                       .tag = "stuff",
                       .body = rapport::schema::object({{"key", rapport::schema::string()}}),
                       .status = 201,
                       .data = rapport::schema::ref("Thing")},
                      "things");
    f.registerBatch(false);
    const RouteMatch match = f.router.match("POST", "/v1/things/batch");
    CPPUNIT_ASSERT(match.kind == RouteMatch::Kind::Found);
    const Route& route = *match.route;
    CPPUNIT_ASSERT_EQUAL(std::string("things"), route.owner);
    CPPUNIT_ASSERT(route.options.roles == std::vector<rapport::Role>{rapport::Role::Owner});
    CPPUNIT_ASSERT(route.doc.has_value());
    CPPUNIT_ASSERT_EQUAL(std::string("Create or update things in a batch"), route.doc->summary);
    CPPUNIT_ASSERT_EQUAL(std::string("stuff"), route.doc->tag);
    CPPUNIT_ASSERT_EQUAL(200, route.doc->status);
    const Json& items = route.doc->body["properties"]["items"];
    CPPUNIT_ASSERT_EQUAL(std::int64_t{100}, items["maxItems"].asInt());
    CPPUNIT_ASSERT(items["items"]["properties"]["action"]["enum"] ==
                   Json(Json::Array{"create", "update"}));
    // The create's body (the update is undescribed) and its answer's data.
    CPPUNIT_ASSERT(items["items"]["properties"]["data"] ==
                   rapport::schema::object({{"key", rapport::schema::string()}}));
    CPPUNIT_ASSERT(route.doc->data["items"]["properties"]["data"] == rapport::schema::ref("Thing"));
    // No upserts, nothing to match on.
    CPPUNIT_ASSERT(!route.doc->body["properties"].contains("match_on"));
    CPPUNIT_ASSERT(!items["items"]["properties"].contains("match_on"));

    // With upserts, the batch's and the item's match_on: a string.
    Fixture upserts;
    upserts.registerBatch();
    const Json& body = upserts.router.match("POST", "/v1/things/batch").route->doc->body;
    CPPUNIT_ASSERT_EQUAL(std::string("string"), body["properties"]["match_on"]["type"].asString());
    CPPUNIT_ASSERT_EQUAL(
        std::string("string"),
        body["properties"]["items"]["items"]["properties"]["match_on"]["type"].asString());
    CPPUNIT_ASSERT(body["required"] == Json(Json::Array{"items"}));
    const std::string described = body["properties"]["match_on"]["description"].asString();
    CPPUNIT_ASSERT_MESSAGE(described,
                           described.find("`key` when none is sent") != std::string::npos);

    // A collection that upserts only by a unique custom field has no default.
    Fixture customOnly;
    customOnly.registerBatch();  // the route only, for its POST and PATCH
    Router& router = customOnly.router;
    router.add(
        "POST", "/v1/deals", [](const Request&) { return Response::messageOnly("x"); }, {},
        "deals");
    router.add(
        "PATCH", "/v1/deals/{id}", [](const Request&) { return Response::messageOnly("x"); }, {},
        "deals");
    registerBatchRoute(router, "/v1/deals",
                       {.upsertBy = "custom_fields.<key> (match_on)",
                        .match = [](rapport::Queryable&, const std::string&, const Json&,
                                    const std::string&) { return std::optional<std::string>(); }},
                       &customOnly.db, "deals");
    const rapport::RouteDoc& deals = *router.match("POST", "/v1/deals/batch").route->doc;
    const std::string noDefault = deals.body["properties"]["match_on"]["description"].asString();
    CPPUNIT_ASSERT_MESSAGE(noDefault, noDefault.find("has no other key") != std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(deals.description,
                           deals.description.find("(match_on)") == std::string::npos);
  }

  void testRegistrationRefusals() {
    const auto refused = [](const std::function<void()>& call, const std::string& message) {
      try {
        call();
      } catch (const std::logic_error& error) {
        CPPUNIT_ASSERT_EQUAL(message, std::string(error.what()));
        return;
      }
      CPPUNIT_FAIL("not refused: " + message);
    };
    Fixture f;
    refused([&] { registerBatchRoute(f.router, "/v1/others", {}, &f.db, "things"); },
            "batch /v1/others of 'things': it has no POST /v1/others route");
    refused([&] { registerBatchRoute(f.router, "/v1/things", {}, &f.db, "thieves"); },
            "batch /v1/things of 'thieves': it has no POST /v1/things route");
    refused(
        [&] { registerBatchRoute(f.router, "/v1/things", {.upsertBy = "key"}, &f.db, "things"); },
        "batch /v1/things of 'things': upsertBy and match go together");
    const rapport::UpsertMatch none = [](rapport::Queryable&, const std::string&, const Json&,
                                         const std::string&) {
      return std::optional<std::string>();
    };
    refused(
        [&] {
          registerBatchRoute(f.router, "/v1/things", {.upsertBy = "key", .match = none}, nullptr,
                             "things");
        },
        "batch /v1/things of 'things': no database for upserts");
    Router patchless;
    patchless.add(
        "POST", "/v1/things", [](const Request&) { return Response::messageOnly("x"); }, {},
        "things");
    refused([&] { registerBatchRoute(patchless, "/v1/things", {}, &f.db, "things"); },
            "batch /v1/things of 'things': it has no PATCH /v1/things/{id} route");
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(BatchRouteTest);
