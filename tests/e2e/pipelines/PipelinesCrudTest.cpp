// Pipelines one at a time and in lists (API Pipelines and stages; decisions
// §1, §2, §7): create, read, update, delete, their errors, roles, the list's
// pages and sorts, counters without deals, tenant isolation.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/pipelines/PipelinesSuite.h"
#include "rapport/ids.h"

using namespace rapport::e2e;
using namespace rapport::e2e::pipelines;

class PipelinesCrudTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(PipelinesCrudTest);
  CPPUNIT_TEST(testEveryRouteNeedsAToken);
  CPPUNIT_TEST(testWrongMethodIs405);
  CPPUNIT_TEST(testCreateReturnsTheWholePipeline);
  CPPUNIT_TEST(testMalformedBodyIs400);
  CPPUNIT_TEST(testFieldRules);
  CPPUNIT_TEST(testMissingWrongPrefixOrOtherTenantIs404);
  CPPUNIT_TEST(testPatch);
  CPPUNIT_TEST(testDelete);
  CPPUNIT_TEST(testListPagesAndSorts);
  CPPUNIT_TEST(testCountersAreZeroWithoutDeals);
  CPPUNIT_TEST(testMembersReadButOnlyOwnersAndAdminsWrite);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEveryRouteNeedsAToken() {
    HttpClient client(pipelinesServer().port());
    const Json body = Json::object({{"name", "x"}});
    E2E_ASSERT_ERROR(401, client.get(kPipelines));
    E2E_ASSERT_ERROR(401, client.post(kPipelines, body));
    E2E_ASSERT_ERROR(401, client.get(pipelinePath("pipe_x")));
    E2E_ASSERT_ERROR(401, client.patch(pipelinePath("pipe_x"), body));
    E2E_ASSERT_ERROR(401, client.del(pipelinePath("pipe_x")));
    E2E_ASSERT_ERROR(401, client.get(stagesPath("pipe_x")));
    E2E_ASSERT_ERROR(401, client.post(stagesPath("pipe_x"), body));
    E2E_ASSERT_ERROR(401, client.get(stagePath("pipe_x", "stg_x")));
    E2E_ASSERT_ERROR(401, client.patch(stagePath("pipe_x", "stg_x"), body));
    E2E_ASSERT_ERROR(401, client.del(stagePath("pipe_x", "stg_x")));
    E2E_ASSERT_ERROR(401, client.patch(stagePath("pipe_x", "reorder"),
                                       Json::object({{"stages", Json::array()}})));
    E2E_ASSERT_ERROR(401, client.get(kPipelines, bearer("not-a-token")));
  }

  void testWrongMethodIs405() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "pipelines-405");
    const auto allowOf = [&](const std::string& method, const std::string& path) {
      const HttpResult result = client.send(method, path, std::string("{}"), bearer(account.token));
      E2E_ASSERT_ERROR(405, result);
      return splitComma(result.header("Allow"));
    };
    CPPUNIT_ASSERT(allowOf("DELETE", kPipelines) == (Names{"GET", "POST"}));
    CPPUNIT_ASSERT(allowOf("PUT", pipelinePath("pipe_x")) == (Names{"DELETE", "GET", "PATCH"}));
    CPPUNIT_ASSERT(allowOf("PATCH", stagesPath("pipe_x")) == (Names{"GET", "POST"}));
    CPPUNIT_ASSERT(allowOf("POST", stagePath("pipe_x", "stg_x")) ==
                   (Names{"DELETE", "GET", "PATCH"}));
    // reorder is PATCH only; the stage route under the same path serves the rest.
    CPPUNIT_ASSERT(allowOf("POST", stagePath("pipe_x", "reorder")) ==
                   (Names{"DELETE", "GET", "PATCH"}));
    E2E_ASSERT_ERROR(404,
                     client.get(stagePath("pipe_x", "stg_x") + "/more", bearer(account.token)));
  }

  void testCreateReturnsTheWholePipeline() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "pipelines-create");
    const Json body = Json::object(
        {{"name", "  Sales  "},
         {"is_default", true},
         {"stages", Json::Array{stageItem("Lead", std::nullopt, 10), stageItem(" Won ", 2, 100)}},
         {"id", "pipe_chosen"},
         {"deals_count", 7},
         {"created_at", "2000-01-01T00:00:00Z"},
         {"unknown", true}});
    const HttpResult result = client.post(kPipelines, body, bearer(account.token));
    const Json pipeline = E2E_ASSERT_DATA(201, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    const Names keys = {"id",          "name",        "is_default", "stages",
                        "deals_count", "deals_value", "created_at", "updated_at"};
    CPPUNIT_ASSERT(pipeline.isObject());
    CPPUNIT_ASSERT_EQUAL_MESSAGE(pipeline.dump(), keys.size(), pipeline.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      CPPUNIT_ASSERT_EQUAL(keys[i], pipeline.asObject()[i].first);  // in this order
    }
    const std::string id = pipeline["id"].asString();
    CPPUNIT_ASSERT_MESSAGE(id, rapport::hasPrefix(id, "pipe_") && id != "pipe_chosen");
    CPPUNIT_ASSERT_EQUAL(std::string("Sales"), pipeline["name"].asString());
    CPPUNIT_ASSERT(pipeline["is_default"] == Json(true));
    CPPUNIT_ASSERT(pipeline["deals_count"] == Json(0));
    CPPUNIT_ASSERT(pipeline["deals_value"] == Json(0));
    const std::int64_t created = E2E_ASSERT_ISO_UTC(pipeline["created_at"]);
    CPPUNIT_ASSERT(created > unixNow() - 60);
    CPPUNIT_ASSERT(pipeline["created_at"] == pipeline["updated_at"]);

    const Json& stages = pipeline["stages"];
    CPPUNIT_ASSERT_EQUAL_MESSAGE(stages.dump(), std::size_t(2), stages.size());
    const Names stageKeys = {"id",          "pipeline_id", "name",       "order",     "probability",
                             "deals_count", "deals_value", "created_at", "updated_at"};
    for (const Json& stage : stages.asArray()) {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(stage.dump(), stageKeys.size(), stage.size());
      for (std::size_t i = 0; i < stageKeys.size(); ++i) {
        CPPUNIT_ASSERT_EQUAL(stageKeys[i], stage.asObject()[i].first);
      }
      CPPUNIT_ASSERT(rapport::hasPrefix(stage["id"].asString(), "stg_"));
      CPPUNIT_ASSERT_EQUAL(id, stage["pipeline_id"].asString());
      CPPUNIT_ASSERT(stage["deals_count"] == Json(0));
      CPPUNIT_ASSERT(stage["deals_value"] == Json(0));
      CPPUNIT_ASSERT(stage["created_at"] == pipeline["created_at"]);
    }
    // "Lead" has no order: it goes after the stages that have one.
    CPPUNIT_ASSERT_EQUAL(std::string("Won"), stages.asArray()[0]["name"].asString());
    CPPUNIT_ASSERT(stages.asArray()[0]["order"] == Json(1));
    CPPUNIT_ASSERT(stages.asArray()[0]["probability"] == Json(100));
    CPPUNIT_ASSERT_EQUAL(std::string("Lead"), stages.asArray()[1]["name"].asString());
    CPPUNIT_ASSERT(stages.asArray()[1]["order"] == Json(2));
    CPPUNIT_ASSERT(stages.asArray()[1]["probability"] == Json(10));

    CPPUNIT_ASSERT_EQUAL(pipeline.dump(), readPipeline(client, account.token, id).dump());

    // Name only: no stages; a stage without probability gets 0.
    const Json bare = createPipeline(client, account.token, Json::object({{"name", "Bare"}}));
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), bare["stages"].dump());
    CPPUNIT_ASSERT(bare["is_default"] == Json(false));
    const Json nullStages =
        createPipeline(client, account.token, Json::object({{"name", "N"}, {"stages", Json()}}));
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), nullStages["stages"].dump());
    const Json zero = createPipeline(client, account.token, "Zero", {"Only"});
    CPPUNIT_ASSERT(zero["stages"].asArray()[0]["probability"] == Json(0));
  }

  void testMalformedBodyIs400() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "pipelines-400");
    const Json pipeline = createPipeline(client, account.token, "P", {"A"});
    const std::string id = pipeline["id"].asString();
    const Headers json = bearer(account.token, {{"Content-Type", "application/json"}});
    for (const std::string body : {"{\"name\":", "[\"name\"]", "\"Sales\""}) {
      E2E_ASSERT_ERROR(400, client.send("POST", kPipelines, body, json));
      E2E_ASSERT_ERROR(400, client.send("PATCH", pipelinePath(id), body, json));
      E2E_ASSERT_ERROR(400, client.send("POST", stagesPath(id), body, json));
      E2E_ASSERT_ERROR(400, client.send("PATCH", stagesPath(id) + "/reorder", body, json));
      E2E_ASSERT_ERROR(400,
                       client.send("PATCH", stagePath(id, stageId(pipeline, "A")), body, json));
    }
  }

  void testFieldRules() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "pipelines-422");
    const auto post = [&](Json body) {
      return client.post(kPipelines, body, bearer(account.token));
    };
    CRM_ASSERT_FIELD_ERROR(post(Json::object()), "name", "The name field is required.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", Json()}})), "name",
                           "The name field is required.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", "  "}})), "name",
                           "The name field is required.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", 5}})), "name", "The name must be a string.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", std::string(256, 'p')}})), "name",
                           "The name may not be greater than 255 characters.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", std::string("a\0b", 3)}})), "name",
                           "The name must not contain null characters.");
    E2E_ASSERT_DATA(201, post(Json::object({{"name", std::string(255, 'p')}})));

    const auto with = [](const char* field, Json value) {
      return Json::object({{"name", "P"}, {field, std::move(value)}});
    };
    CRM_ASSERT_FIELD_ERROR(post(with("is_default", "yes")), "is_default",
                           "The is_default field must be true or false.");
    CRM_ASSERT_FIELD_ERROR(post(with("stages", "Lead")), "stages", "The stages must be an array.");
    CRM_ASSERT_FIELD_ERROR(post(with("stages", Json::Array{stageItem("A"), "B"})), "stages.1",
                           "The stages.1 must be an object.");
    CRM_ASSERT_FIELD_ERROR(post(with("stages", Json::Array{Json::object()})), "stages.0.name",
                           "The stages.0.name field is required.");
    CRM_ASSERT_FIELD_ERROR(post(with("stages", Json::Array{stageItem("A"), stageItem(" ")})),
                           "stages.1.name", "The stages.1.name field is required.");
    CRM_ASSERT_FIELD_ERROR(post(with("stages", Json::Array{stageItem(std::string(256, 's'))})),
                           "stages.0.name",
                           "The stages.0.name may not be greater than 255 characters.");
    CRM_ASSERT_FIELD_ERROR(post(with("stages", Json::Array{stageItem("A", 0)})), "stages.0.order",
                           "The stages.0.order must be at least 1.");
    CRM_ASSERT_FIELD_ERROR(
        post(with("stages", Json::Array{Json::object({{"name", "A"}, {"order", 1.5}})})),
        "stages.0.order", "The stages.0.order must be an integer.");
    CRM_ASSERT_FIELD_ERROR(post(with("stages", Json::Array{stageItem("A", 1, 101)})),
                           "stages.0.probability",
                           "The stages.0.probability may not be greater than 100.");
    CRM_ASSERT_FIELD_ERROR(post(with("stages", Json::Array{stageItem("A", 1, -1)})),
                           "stages.0.probability", "The stages.0.probability must be at least 0.");
    CRM_ASSERT_FIELD_ERROR(
        post(with("stages", Json::Array{Json::object({{"name", "A"}, {"probability", "50"}})})),
        "stages.0.probability", "The stages.0.probability must be an integer.");
    // Every field at fault is named at once, nested ones with dotted keys.
    const Json error = CRM_ASSERT_FIELD_ERROR(
        post(Json::object({{"is_default", 1},
                           {"stages", Json::Array{stageItem("A", 0), Json::object({{"x", 1}})}}})),
        "name", "");
    for (const char* key : {"is_default", "stages.0.order", "stages.1.name"}) {
      CPPUNIT_ASSERT_MESSAGE(key, error["errors"].contains(key));
    }

    Json many = Json::array();
    for (int i = 0; i < 51; ++i) many.push(stageItem("S" + std::to_string(i)));
    CRM_ASSERT_FIELD_ERROR(post(with("stages", many)), "stages",
                           "The stages may not have more than 50 items.");
    many.asArray().pop_back();
    const Json fifty = E2E_ASSERT_DATA(201, post(with("stages", many)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(50), fifty["stages"].size());
    CPPUNIT_ASSERT(fifty["stages"].asArray()[49]["order"] == Json(50));
    // Nothing was written by the refused creates.
    const Json list = getBody(client, account.token, kPipelines);
    CPPUNIT_ASSERT(list["meta"]["total"] == Json(2));
  }

  void testMissingWrongPrefixOrOtherTenantIs404() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "pipelines-404");
    const Account other = registerUser(client, "pipelines-404-other");
    const Json mine = createPipeline(client, account.token, "Mine", {"A", "B"});
    const Json theirs = createPipeline(client, other.token, "Theirs", {"X"});
    const std::string theirStage = stageId(theirs, "X");
    const std::string myStage = stageId(mine, "A");
    const std::string myId = mine["id"].asString();
    const Headers auth = bearer(account.token);
    const Json name = Json::object({{"name", "N"}});
    const Json reorderBody =
        Json::object({{"stages", Json::Array{Json::object({{"id", theirStage}, {"order", 1}})}}});
    for (const std::string& id :
         {std::string("pipe_missing"), theirs["id"].asString(), std::string("cont_x"), myStage}) {
      const std::string message = "Pipeline not found.";
      CRM_ASSERT_ERROR_MESSAGE(404, message, client.get(pipelinePath(id), auth));
      CRM_ASSERT_ERROR_MESSAGE(404, message, client.patch(pipelinePath(id), name, auth));
      CRM_ASSERT_ERROR_MESSAGE(404, message, client.del(pipelinePath(id), auth));
      CRM_ASSERT_ERROR_MESSAGE(404, message, client.get(stagesPath(id), auth));
      CRM_ASSERT_ERROR_MESSAGE(404, message, client.post(stagesPath(id), name, auth));
      CRM_ASSERT_ERROR_MESSAGE(404, message,
                               client.patch(stagesPath(id) + "/reorder", reorderBody, auth));
      CRM_ASSERT_ERROR_MESSAGE(404, message, client.get(stagePath(id, theirStage), auth));
      CRM_ASSERT_ERROR_MESSAGE(404, message, client.patch(stagePath(id, theirStage), name, auth));
      CRM_ASSERT_ERROR_MESSAGE(404, message, client.del(stagePath(id, theirStage), auth));
    }
    // Another tenant's stage (or none, or a wrong prefix) under my pipeline.
    for (const std::string& id :
         {theirStage, std::string("stg_missing"), myId, std::string("reorder")}) {
      const std::string message = "Stage not found.";
      CRM_ASSERT_ERROR_MESSAGE(404, message, client.get(stagePath(myId, id), auth));
      if (id == "reorder") continue;  // PATCH .../reorder is the reorder route
      CRM_ASSERT_ERROR_MESSAGE(404, message, client.patch(stagePath(myId, id), name, auth));
      CRM_ASSERT_ERROR_MESSAGE(404, message, client.del(stagePath(myId, id), auth));
    }
    // The other tenant's records are untouched and still theirs.
    CPPUNIT_ASSERT_EQUAL(theirs.dump(),
                         readPipeline(client, other.token, theirs["id"].asString()).dump());
    CPPUNIT_ASSERT(getBody(client, account.token, kPipelines)["meta"]["total"] == Json(1));
  }

  void testPatch() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "pipelines-patch");
    const Json pipeline = createPipeline(client, account.token, "Old", {"A"});
    const std::string path = pipelinePath(pipeline["id"].asString());
    const Headers auth = bearer(account.token);

    // Nothing changeable: the pipeline as it is, nothing written.
    const Json same = E2E_ASSERT_DATA(200, client.patch(path, Json::object({{"x", 1}}), auth));
    CPPUNIT_ASSERT_EQUAL(pipeline.dump(), same.dump());

    const HttpResult renamed = client.patch(path, Json::object({{"name", " New "}}), auth);
    const Json updated = E2E_ASSERT_DATA(200, renamed);
    CPPUNIT_ASSERT_EQUAL(std::string("Pipeline updated."), renamed.json()["message"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("New"), updated["name"].asString());
    CPPUNIT_ASSERT(updated["is_default"] == Json(true));
    CPPUNIT_ASSERT(updated["stages"] == pipeline["stages"]);
    CPPUNIT_ASSERT(updated["created_at"] == pipeline["created_at"]);
    CPPUNIT_ASSERT(updated["updated_at"].asString() > pipeline["updated_at"].asString());
    CPPUNIT_ASSERT_EQUAL(updated.dump(),
                         readPipeline(client, account.token, pipeline["id"].asString()).dump());

    CRM_ASSERT_FIELD_ERROR(client.patch(path, Json::object({{"name", Json()}}), auth), "name",
                           "The name field is required.");
    CRM_ASSERT_FIELD_ERROR(client.patch(path, Json::object({{"name", ""}}), auth), "name",
                           "The name field is required.");
    CRM_ASSERT_FIELD_ERROR(
        client.patch(path, Json::object({{"name", std::string(256, 'n')}}), auth), "name",
        "The name may not be greater than 255 characters.");
    CRM_ASSERT_FIELD_ERROR(client.patch(path, Json::object({{"is_default", Json()}}), auth),
                           "is_default", "The is_default field is required.");
    CRM_ASSERT_FIELD_ERROR(client.patch(path, Json::object({{"is_default", "false"}}), auth),
                           "is_default", "The is_default field must be true or false.");
    // Stages are not changed through the pipeline.
    const Json ignored =
        E2E_ASSERT_DATA(200, client.patch(path, Json::object({{"stages", Json::array()}}), auth));
    CPPUNIT_ASSERT(ignored["stages"] == pipeline["stages"]);
  }

  void testDelete() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "pipelines-delete");
    const Json pipeline = createPipeline(client, account.token, "Doomed", {"A", "B"});
    const Json kept = createPipeline(client, account.token, "Kept", {"C"});
    const std::string id = pipeline["id"].asString();
    const Headers auth = bearer(account.token);
    const HttpResult removed = client.del(pipelinePath(id), auth);
    const Json data = E2E_ASSERT_DATA(200, removed);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"id\":\"" + id + "\"}"), data.dump());
    CPPUNIT_ASSERT_EQUAL(std::string("Pipeline deleted."), removed.json()["message"].asString());
    CRM_ASSERT_ERROR_MESSAGE(404, "Pipeline not found.", client.get(pipelinePath(id), auth));
    CRM_ASSERT_ERROR_MESSAGE(404, "Pipeline not found.", client.del(pipelinePath(id), auth));
    // Its stages went with it; the other pipeline's did not.
    const auto rows = queryDatabase(pipelinesServer().databaseUrl(),
                                    "SELECT pipeline_id FROM pipeline_stages WHERE company_id = " +
                                        sqlQuote(account.companyId));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), rows.size());
    CPPUNIT_ASSERT_EQUAL(kept["id"].asString(), rows.at(0).at(0));
    CPPUNIT_ASSERT(idsOf(getBody(client, account.token, kPipelines)) ==
                   (Names{kept["id"].asString()}));
  }

  void testListPagesAndSorts() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "pipelines-list");
    const std::string b =
        createPipeline(client, account.token, "beta", {"B1", "B2"})["id"].asString();
    const std::string a = createPipeline(client, account.token, "Alpha")["id"].asString();
    const std::string c = createPipeline(client, account.token, "gamma", {"C1"})["id"].asString();
    // b is renamed last, so it is the most recently updated.
    E2E_ASSERT_DATA(200, client.patch(pipelinePath(b), Json::object({{"name", "Beta"}}),
                                      bearer(account.token)));
    const auto ids = [&](const std::string& query) {
      return idsOf(getBody(client, account.token, kPipelines + "?" + query));
    };

    const HttpResult result = client.get(kPipelines, bearer(account.token));
    E2E_ASSERT_DATA(200, result);
    const Json body = result.json();
    CPPUNIT_ASSERT(idsOf(body) == (Names{c, a, b}));  // newest first
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":3,"last_page":1})"),
                         body["meta"].dump());
    // Each pipeline carries its ordered stages and counters.
    const Json& listedB = body["data"].asArray()[2];
    CPPUNIT_ASSERT_EQUAL(readPipeline(client, account.token, b).dump(), listedB.dump());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), listedB["stages"].size());
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), body["data"].asArray()[1]["stages"].size());

    const Json page = getBody(client, account.token, kPipelines + "?per_page=2&page=2");
    CPPUNIT_ASSERT(idsOf(page) == (Names{b}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":2,"per_page":2,"total":3,"last_page":2})"),
                         page["meta"].dump());
    const Json past = getBody(client, account.token, kPipelines + "?per_page=2&page=5");
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), past["data"].dump());

    CPPUNIT_ASSERT(ids("sort=name") == (Names{a, b, c}));
    CPPUNIT_ASSERT(ids("sort=-name") == (Names{c, b, a}));
    CPPUNIT_ASSERT(ids("sort=created_at") == (Names{b, a, c}));
    CPPUNIT_ASSERT(ids("sort=-created_at") == (Names{c, a, b}));
    CPPUNIT_ASSERT(ids("sort=-updated_at") == (Names{b, c, a}));
    CPPUNIT_ASSERT(ids("sort=updated_at&per_page=1") == (Names{a}));
    for (const char* bad : {"is_default", "deals_count", "-", "Name"}) {
      CRM_ASSERT_FIELD_ERROR(client.get(kPipelines + "?sort=" + bad, bearer(account.token)), "sort",
                             "");
    }
    for (const char* bad : {"per_page=0", "per_page=101", "page=0", "page=x"}) {
      const HttpResult refused = client.get(kPipelines + "?" + bad, bearer(account.token));
      E2E_ASSERT_ERROR(422, refused);
    }
    // Another tenant sees none of them.
    const Account other = registerUser(client, "pipelines-list-other");
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":0,"last_page":1})"),
                         getBody(client, other.token, kPipelines)["meta"].dump());
  }

  void testCountersAreZeroWithoutDeals() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "pipelines-counters");
    const Json pipeline = createPipeline(client, account.token, "Counted", {"A", "B"});
    const std::string id = pipeline["id"].asString();
    const auto zero = [](const Json& record) {
      CPPUNIT_ASSERT_MESSAGE(record.dump(), record["deals_count"] == Json(0));
      CPPUNIT_ASSERT_MESSAGE(record.dump(), record["deals_value"] == Json(0));
    };
    const Json listed = getBody(client, account.token, kPipelines)["data"].asArray()[0];
    for (const Json& shown : {pipeline, listed, readPipeline(client, account.token, id)}) {
      zero(shown);
      for (const Json& stage : shown["stages"].asArray()) zero(stage);
    }
    const Json stages = E2E_ASSERT_DATA(200, client.get(stagesPath(id), bearer(account.token)));
    for (const Json& stage : stages.asArray()) zero(stage);
    zero(E2E_ASSERT_DATA(200,
                         client.get(stagePath(id, stageId(pipeline, "B")), bearer(account.token))));
  }

  void testMembersReadButOnlyOwnersAndAdminsWrite() {
    HttpClient client(pipelinesServer().port());
    const Account owner = registerUser(client, "pipelines-roles");
    const Account plain = registerUser(client, "pipelines-roles-member");
    const Account admin = registerUser(client, "pipelines-roles-admin");
    const std::string memberToken = joinAs(client, owner, plain, "member");
    const std::string adminToken = joinAs(client, owner, admin, "admin");
    const Json pipeline = createPipeline(client, owner.token, "Shared", {"A", "B"});
    const std::string id = pipeline["id"].asString();
    const std::string stage = stageId(pipeline, "A");
    const Headers member = bearer(memberToken);

    // Reads are open to every member.
    CPPUNIT_ASSERT(idsOf(getBody(client, memberToken, kPipelines)) == (Names{id}));
    CPPUNIT_ASSERT_EQUAL(pipeline.dump(), readPipeline(client, memberToken, id).dump());
    E2E_ASSERT_DATA(200, client.get(stagesPath(id), member));
    E2E_ASSERT_DATA(200, client.get(stagePath(id, stage), member));

    // Every write answers 403, whether or not the record exists.
    const Json name = Json::object({{"name", "N"}});
    const Json order =
        Json::object({{"stages", Json::Array{Json::object({{"id", stage}, {"order", 1}})}}});
    for (const std::string& target : {id, std::string("pipe_missing")}) {
      E2E_ASSERT_ERROR(403, client.post(kPipelines, name, member));
      E2E_ASSERT_ERROR(403, client.patch(pipelinePath(target), name, member));
      E2E_ASSERT_ERROR(403, client.del(pipelinePath(target), member));
      E2E_ASSERT_ERROR(403, client.post(stagesPath(target), name, member));
      E2E_ASSERT_ERROR(403, client.patch(stagePath(target, stage), name, member));
      E2E_ASSERT_ERROR(403, client.del(stagePath(target, stage), member));
      E2E_ASSERT_ERROR(403, client.patch(stagesPath(target) + "/reorder", order, member));
    }
    CPPUNIT_ASSERT_EQUAL(pipeline.dump(), readPipeline(client, owner.token, id).dump());
    CPPUNIT_ASSERT(getBody(client, owner.token, kPipelines)["meta"]["total"] == Json(1));

    // An admin may change them.
    const Json created = createPipeline(client, adminToken, Json::object({{"name", "By admin"}}));
    E2E_ASSERT_DATA(200, client.patch(pipelinePath(id), name, bearer(adminToken)));
    E2E_ASSERT_DATA(201, client.post(stagesPath(id), name, bearer(adminToken)));
    E2E_ASSERT_DATA(
        200, client.patch(stagePath(id, stage), Json::object({{"order", 3}}), bearer(adminToken)));
    E2E_ASSERT_DATA(200, client.del(stagePath(id, stage), bearer(adminToken)));
    E2E_ASSERT_DATA(200, client.del(pipelinePath(created["id"].asString()), bearer(adminToken)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(PipelinesCrudTest);
