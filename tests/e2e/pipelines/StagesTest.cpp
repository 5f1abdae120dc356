// Stages of a pipeline (API Pipelines and stages; decisions §1, §7): create,
// read, update, delete, reorder, and the order running 1..n without gaps
// after every change.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/pipelines/PipelinesSuite.h"
#include "rapport/ids.h"

using namespace rapport::e2e;
using namespace rapport::e2e::pipelines;

namespace {

Json reorderBody(const std::vector<std::pair<std::string, Json>>& entries) {
  Json stages = Json::array();
  for (const auto& [id, order] : entries) stages.push(Json::object({{"id", id}, {"order", order}}));
  return Json::object({{"stages", stages}});
}

}  // namespace

class StagesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(StagesTest);
  CPPUNIT_TEST(testCreateSortsTheGivenStages);
  CPPUNIT_TEST(testReadStages);
  CPPUNIT_TEST(testNewStagePlaces);
  CPPUNIT_TEST(testStageFieldRules);
  CPPUNIT_TEST(testPatchMovesAndChangesAStage);
  CPPUNIT_TEST(testDeleteClosesTheGap);
  CPPUNIT_TEST(testReorder);
  CPPUNIT_TEST(testReorderRefusals);
  CPPUNIT_TEST(testStageOfAnotherPipelineIs404);
  CPPUNIT_TEST(testAtMostFiftyStages);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCreateSortsTheGivenStages() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "stages-create");
    // By order (stable: B after A at 1), the stages without one last in array order.
    const Json pipeline = createPipeline(
        client, account.token,
        Json::object(
            {{"name", "Sorted"},
             {"stages", Json::Array{stageItem("C", 7), stageItem("X"), stageItem("A", 1),
                                    stageItem("D", 40), stageItem("B", 1), stageItem("Y")}}}));
    Names names;
    std::int64_t expected = 1;
    for (const Json& stage : pipeline["stages"].asArray()) {
      CPPUNIT_ASSERT(stage["order"] == Json(expected++));
      names.push_back(stage["name"].asString());
    }
    CPPUNIT_ASSERT(names == (Names{"A", "B", "C", "D", "X", "Y"}));
    CPPUNIT_ASSERT(stageNames(client, account.token, pipeline["id"].asString()) == names);
  }

  void testReadStages() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "stages-read");
    const Json pipeline = createPipeline(client, account.token, "Read", {"A", "B"});
    const std::string id = pipeline["id"].asString();
    const HttpResult result = client.get(stagesPath(id), bearer(account.token));
    const Json stages = E2E_ASSERT_DATA(200, result);
    CPPUNIT_ASSERT(!result.json().contains("meta"));  // a plain array
    CPPUNIT_ASSERT_EQUAL(pipeline["stages"].dump(), stages.dump());
    for (const Json& stage : pipeline["stages"].asArray()) {
      const Json read = E2E_ASSERT_DATA(
          200, client.get(stagePath(id, stage["id"].asString()), bearer(account.token)));
      CPPUNIT_ASSERT_EQUAL(stage.dump(), read.dump());
    }
    const Json empty = createPipeline(client, account.token, "Empty");
    CPPUNIT_ASSERT_EQUAL(
        std::string("[]"),
        E2E_ASSERT_DATA(200, client.get(stagesPath(empty["id"].asString()), bearer(account.token)))
            .dump());
  }

  void testNewStagePlaces() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "stages-new");
    const Json pipeline = createPipeline(client, account.token, "Places", {"B", "C"});
    const std::string id = pipeline["id"].asString();
    const auto add = [&](Json body) {
      return E2E_ASSERT_DATA(201, client.post(stagesPath(id), body, bearer(account.token)));
    };
    // Without an order: last; probability 0.
    const HttpResult result =
        client.post(stagesPath(id), Json::object({{"name", " D "}}), bearer(account.token));
    const Json d = E2E_ASSERT_DATA(201, result);
    CPPUNIT_ASSERT_EQUAL(std::string("Stage created."), result.json()["message"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("D"), d["name"].asString());
    CPPUNIT_ASSERT(d["order"] == Json(3));
    CPPUNIT_ASSERT(d["probability"] == Json(0));
    CPPUNIT_ASSERT_EQUAL(id, d["pipeline_id"].asString());
    CPPUNIT_ASSERT(rapport::hasPrefix(d["id"].asString(), "stg_"));
    CPPUNIT_ASSERT(d["deals_count"] == Json(0) && d["deals_value"] == Json(0));
    CPPUNIT_ASSERT_EQUAL(
        d.dump(),
        E2E_ASSERT_DATA(200, client.get(stagePath(id, d["id"].asString()), bearer(account.token)))
            .dump());
    // At 1: first, the others move down one.
    CPPUNIT_ASSERT(add(Json::object({{"name", "A"}, {"order", 1}, {"probability", 5}}))["order"] ==
                   Json(1));
    CPPUNIT_ASSERT(stageNames(client, account.token, id) == (Names{"A", "B", "C", "D"}));
    // In the middle.
    CPPUNIT_ASSERT(add(Json::object({{"name", "M"}, {"order", 3}}))["order"] == Json(3));
    CPPUNIT_ASSERT(stageNames(client, account.token, id) == (Names{"A", "B", "M", "C", "D"}));
    // At n+1: last.
    CPPUNIT_ASSERT(add(Json::object({{"name", "E"}, {"order", 6}}))["order"] == Json(6));
    // Beyond n+1: clamped to last.
    CPPUNIT_ASSERT(add(Json::object({{"name", "F"}, {"order", 1000}}))["order"] == Json(7));
    CPPUNIT_ASSERT(stageNames(client, account.token, id) ==
                   (Names{"A", "B", "M", "C", "D", "E", "F"}));
    // The pipeline shows the change (and moved its updated_at).
    const Json now = readPipeline(client, account.token, id);
    CPPUNIT_ASSERT_EQUAL(std::size_t(7), now["stages"].size());
    CPPUNIT_ASSERT(now["updated_at"].asString() > pipeline["updated_at"].asString());
    // The first stage of an empty pipeline, whatever order it asks.
    const Json empty = createPipeline(client, account.token, "Empty");
    const Json only = E2E_ASSERT_DATA(
        201, client.post(stagesPath(empty["id"].asString()),
                         Json::object({{"name", "Only"}, {"order", 4}}), bearer(account.token)));
    CPPUNIT_ASSERT(only["order"] == Json(1));
  }

  void testStageFieldRules() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "stages-422");
    const Json pipeline = createPipeline(client, account.token, "Rules", {"A", "B"});
    const std::string id = pipeline["id"].asString();
    const std::string stage = stageId(pipeline, "A");
    const auto post = [&](Json body) {
      return client.post(stagesPath(id), body, bearer(account.token));
    };
    const auto patch = [&](Json body) {
      return client.patch(stagePath(id, stage), body, bearer(account.token));
    };
    CRM_ASSERT_FIELD_ERROR(post(Json::object()), "name", "The name field is required.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", " "}})), "name",
                           "The name field is required.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", std::string(256, 's')}})), "name",
                           "The name may not be greater than 255 characters.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", "S"}, {"order", 0}})), "order",
                           "The order must be at least 1.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", "S"}, {"order", -3}})), "order",
                           "The order must be at least 1.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", "S"}, {"order", "2"}})), "order",
                           "The order must be an integer.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", "S"}, {"probability", 101}})), "probability",
                           "The probability may not be greater than 100.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", "S"}, {"probability", -1}})), "probability",
                           "The probability must be at least 0.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", "S"}, {"probability", 50.5}})),
                           "probability", "The probability must be an integer.");
    E2E_ASSERT_DATA(201,
                    post(Json::object({{"name", std::string(255, 's')}, {"probability", 100}})));

    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"name", Json()}})), "name",
                           "The name field is required.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"order", 0}})), "order",
                           "The order must be at least 1.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"order", Json()}})), "order",
                           "The order field is required.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"probability", Json()}})), "probability",
                           "The probability field is required.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"probability", 101}})), "probability",
                           "The probability may not be greater than 100.");
    // Nothing was changed by the refusals.
    CPPUNIT_ASSERT(stageNames(client, account.token, id) ==
                   (Names{"A", "B", std::string(255, 's')}));
    CPPUNIT_ASSERT(E2E_ASSERT_DATA(200, client.get(stagePath(id, stage),
                                                   bearer(account.token)))["probability"] ==
                   Json(0));
  }

  void testPatchMovesAndChangesAStage() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "stages-patch");
    const Json pipeline = createPipeline(client, account.token, "Moves", {"A", "B", "C", "D", "E"});
    const std::string id = pipeline["id"].asString();
    const auto patch = [&](const std::string& name, Json body) {
      const HttpResult result =
          client.patch(stagePath(id, stageId(pipeline, name)), body, bearer(account.token));
      return E2E_ASSERT_DATA(200, result);
    };
    // Nothing changeable: the stage as it is.
    const Json same = patch("C", Json::object({{"unknown", 1}}));
    CPPUNIT_ASSERT_EQUAL(pipeline["stages"].asArray()[2].dump(), same.dump());

    // Name and probability; the order stays.
    const Json renamed = patch("C", Json::object({{"name", " Middle "}, {"probability", 60}}));
    CPPUNIT_ASSERT_EQUAL(std::string("Middle"), renamed["name"].asString());
    CPPUNIT_ASSERT(renamed["probability"] == Json(60));
    CPPUNIT_ASSERT(renamed["order"] == Json(3));
    CPPUNIT_ASSERT(renamed["updated_at"].asString() > renamed["created_at"].asString());
    CPPUNIT_ASSERT(stageNames(client, account.token, id) == (Names{"A", "B", "Middle", "D", "E"}));

    // Up: D to 2 (B and Middle move down).
    CPPUNIT_ASSERT(patch("D", Json::object({{"order", 2}}))["order"] == Json(2));
    CPPUNIT_ASSERT(stageNames(client, account.token, id) == (Names{"A", "D", "B", "Middle", "E"}));
    // Down: A to 4.
    CPPUNIT_ASSERT(patch("A", Json::object({{"order", 4}}))["order"] == Json(4));
    CPPUNIT_ASSERT(stageNames(client, account.token, id) == (Names{"D", "B", "Middle", "A", "E"}));
    // Beyond the last place: clamped to last.
    CPPUNIT_ASSERT(patch("D", Json::object({{"order", 99}}))["order"] == Json(5));
    CPPUNIT_ASSERT(stageNames(client, account.token, id) == (Names{"B", "Middle", "A", "E", "D"}));
    // To the first place, with a rename at the same time.
    const Json first = patch("E", Json::object({{"order", 1}, {"name", "Start"}}));
    CPPUNIT_ASSERT(first["order"] == Json(1));
    CPPUNIT_ASSERT(stageNames(client, account.token, id) ==
                   (Names{"Start", "B", "Middle", "A", "D"}));
    // Its own place: nothing moves.
    CPPUNIT_ASSERT(patch("B", Json::object({{"order", 2}}))["order"] == Json(2));
    CPPUNIT_ASSERT(stageNames(client, account.token, id) ==
                   (Names{"Start", "B", "Middle", "A", "D"}));
  }

  void testDeleteClosesTheGap() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "stages-delete");
    const Json pipeline = createPipeline(client, account.token, "Gaps", {"A", "B", "C", "D"});
    const std::string id = pipeline["id"].asString();
    const auto remove = [&](const std::string& name) {
      const std::string stage = stageId(pipeline, name);
      const HttpResult result = client.del(stagePath(id, stage), bearer(account.token));
      CPPUNIT_ASSERT_EQUAL(std::string("{\"id\":\"" + stage + "\"}"),
                           E2E_ASSERT_DATA(200, result).dump());
      CPPUNIT_ASSERT_EQUAL(std::string("Stage deleted."), result.json()["message"].asString());
      CRM_ASSERT_ERROR_MESSAGE(404, "Stage not found.",
                               client.get(stagePath(id, stage), bearer(account.token)));
      CRM_ASSERT_ERROR_MESSAGE(404, "Stage not found.",
                               client.del(stagePath(id, stage), bearer(account.token)));
    };
    remove("B");  // the middle
    CPPUNIT_ASSERT(stageNames(client, account.token, id) == (Names{"A", "C", "D"}));
    remove("A");  // the first
    CPPUNIT_ASSERT(stageNames(client, account.token, id) == (Names{"C", "D"}));
    remove("D");  // the last
    CPPUNIT_ASSERT(stageNames(client, account.token, id) == (Names{"C"}));
    remove("C");
    CPPUNIT_ASSERT(stageNames(client, account.token, id).empty());
    // A new stage after deletions takes place 1.
    CPPUNIT_ASSERT(E2E_ASSERT_DATA(201, client.post(stagesPath(id), Json::object({{"name", "New"}}),
                                                    bearer(account.token)))["order"] == Json(1));
  }

  void testReorder() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "stages-reorder");
    const Json pipeline = createPipeline(client, account.token, "Reorder", {"A", "B", "C"});
    const std::string id = pipeline["id"].asString();
    const std::string a = stageId(pipeline, "A"), b = stageId(pipeline, "B"),
                      c = stageId(pipeline, "C");
    const auto reorder = [&](const Json& body) {
      return client.patch(stagesPath(id) + "/reorder", body, bearer(account.token));
    };
    const HttpResult result = reorder(reorderBody({{b, 3}, {c, 1}, {a, 2}}));
    const Json stages = E2E_ASSERT_DATA(200, result);
    CPPUNIT_ASSERT(!result.json().contains("meta"));
    CPPUNIT_ASSERT(pluck(stages, "name") == (Names{"C", "A", "B"}));
    CPPUNIT_ASSERT_EQUAL(
        stages.dump(),
        E2E_ASSERT_DATA(200, client.get(stagesPath(id), bearer(account.token))).dump());
    for (std::size_t i = 0; i < stages.size(); ++i) {
      CPPUNIT_ASSERT(stages.asArray()[i]["order"] == Json(static_cast<int>(i + 1)));
    }
    // Orders need only be distinct: arranged by them, renumbered 1..n.
    CPPUNIT_ASSERT(pluck(E2E_ASSERT_DATA(200, reorder(reorderBody({{a, 30}, {b, 10}, {c, 20}}))),
                         "name") == (Names{"B", "C", "A"}));
    CPPUNIT_ASSERT(stageNames(client, account.token, id) == (Names{"B", "C", "A"}));
    // The same order again: nothing moves.
    CPPUNIT_ASSERT(pluck(E2E_ASSERT_DATA(200, reorder(reorderBody({{b, 1}, {c, 2}, {a, 3}}))),
                         "name") == (Names{"B", "C", "A"}));
    // A pipeline without stages reorders nothing.
    const Json empty = createPipeline(client, account.token, "Empty");
    CPPUNIT_ASSERT_EQUAL(
        std::string("[]"),
        E2E_ASSERT_DATA(
            200, client.patch(stagesPath(empty["id"].asString()) + "/reorder",
                              Json::object({{"stages", Json::array()}}), bearer(account.token)))
            .dump());
    // The reorder keeps every stage's other fields.
    for (const Json& stage : pipeline["stages"].asArray()) {
      const Json read = E2E_ASSERT_DATA(
          200, client.get(stagePath(id, stage["id"].asString()), bearer(account.token)));
      CPPUNIT_ASSERT(read["name"] == stage["name"]);
      CPPUNIT_ASSERT(read["created_at"] == stage["created_at"]);
    }
  }

  void testReorderRefusals() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "stages-reorder-422");
    const Json pipeline = createPipeline(client, account.token, "Refusals", {"A", "B", "C"});
    const Json other = createPipeline(client, account.token, "Other", {"X"});
    const std::string id = pipeline["id"].asString();
    const std::string a = stageId(pipeline, "A"), b = stageId(pipeline, "B"),
                      c = stageId(pipeline, "C"), x = stageId(other, "X");
    const auto reorder = [&](const Json& body) {
      return client.patch(stagesPath(id) + "/reorder", body, bearer(account.token));
    };
    CRM_ASSERT_FIELD_ERROR(reorder(Json::object()), "stages", "The stages field is required.");
    CRM_ASSERT_FIELD_ERROR(reorder(Json::object({{"stages", "A"}})), "stages",
                           "The stages must be an array.");
    // Missing a stage.
    CRM_ASSERT_FIELD_ERROR(reorder(reorderBody({{a, 1}, {b, 2}})), "stages",
                           "The stages must name every stage of the pipeline.");
    CRM_ASSERT_FIELD_ERROR(reorder(Json::object({{"stages", Json::array()}})), "stages",
                           "The stages must name every stage of the pipeline.");
    // A stage twice.
    CRM_ASSERT_FIELD_ERROR(reorder(reorderBody({{a, 1}, {b, 2}, {c, 3}, {a, 4}})), "stages",
                           "The stages.3.id names a stage listed before.");
    CRM_ASSERT_FIELD_ERROR(reorder(reorderBody({{a, 1}, {b, 2}, {b, 3}})), "stages",
                           "The stages.2.id names a stage listed before.");
    // Unknown, and another pipeline's stage.
    CRM_ASSERT_FIELD_ERROR(reorder(reorderBody({{a, 1}, {b, 2}, {"stg_unknown", 3}})), "stages",
                           "The stages.2.id is not a stage of this pipeline.");
    CRM_ASSERT_FIELD_ERROR(reorder(reorderBody({{a, 1}, {b, 2}, {c, 3}, {x, 4}})), "stages",
                           "The stages.3.id is not a stage of this pipeline.");
    CRM_ASSERT_FIELD_ERROR(reorder(reorderBody({{x, 1}, {b, 2}, {c, 3}})), "stages",
                           "The stages.0.id is not a stage of this pipeline.");
    // Orders: distinct integers of 1 or more.
    CRM_ASSERT_FIELD_ERROR(reorder(reorderBody({{a, 1}, {b, 1}, {c, 3}})), "stages.1.order",
                           "The stages.1.order is given to another stage too.");
    CRM_ASSERT_FIELD_ERROR(reorder(reorderBody({{a, 0}, {b, 1}, {c, 3}})), "stages.0.order",
                           "The stages.0.order must be at least 1.");
    CRM_ASSERT_FIELD_ERROR(reorder(reorderBody({{a, 1}, {b, 2.5}, {c, 3}})), "stages.1.order",
                           "The stages.1.order must be an integer.");
    CRM_ASSERT_FIELD_ERROR(reorder(reorderBody({{a, 1}, {b, Json()}, {c, 3}})), "stages.1.order",
                           "The stages.1.order field is required.");
    CRM_ASSERT_FIELD_ERROR(
        reorder(Json::object({{"stages", Json::Array{Json::object({{"order", 1}})}}})),
        "stages.0.id", "The stages.0.id field is required.");
    CRM_ASSERT_FIELD_ERROR(reorder(Json::object({{"stages", Json::Array{a}}})), "stages.0",
                           "The stages.0 must be an object.");
    // Nothing moved.
    CPPUNIT_ASSERT(stageNames(client, account.token, id) == (Names{"A", "B", "C"}));
    CPPUNIT_ASSERT(stageNames(client, account.token, other["id"].asString()) == (Names{"X"}));
  }

  void testStageOfAnotherPipelineIs404() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "stages-404");
    const Account stranger = registerUser(client, "stages-404-other");
    const Json mine = createPipeline(client, account.token, "Mine", {"A"});
    const Json sibling = createPipeline(client, account.token, "Sibling", {"S"});
    const Json theirs = createPipeline(client, stranger.token, "Theirs", {"T"});
    const std::string id = mine["id"].asString();
    const Headers auth = bearer(account.token);
    for (const std::string& stage : {stageId(sibling, "S"), stageId(theirs, "T")}) {
      CRM_ASSERT_ERROR_MESSAGE(404, "Stage not found.", client.get(stagePath(id, stage), auth));
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Stage not found.",
          client.patch(stagePath(id, stage), Json::object({{"name", "N"}}), auth));
      CRM_ASSERT_ERROR_MESSAGE(404, "Stage not found.", client.del(stagePath(id, stage), auth));
    }
    // A reorder naming the stranger's stage names an unknown stage.
    CRM_ASSERT_FIELD_ERROR(
        client.patch(stagesPath(id) + "/reorder",
                     reorderBody({{stageId(mine, "A"), 1}, {stageId(theirs, "T"), 2}}), auth),
        "stages", "The stages.1.id is not a stage of this pipeline.");
    // Through its own pipeline, the sibling's stage is fine; the stranger's is untouched.
    E2E_ASSERT_DATA(200,
                    client.get(stagePath(sibling["id"].asString(), stageId(sibling, "S")), auth));
    CPPUNIT_ASSERT_EQUAL(theirs.dump(),
                         readPipeline(client, stranger.token, theirs["id"].asString()).dump());
    CPPUNIT_ASSERT(stageNames(client, account.token, id) == (Names{"A"}));
  }

  void testAtMostFiftyStages() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "stages-limit");
    Names names;
    for (int i = 0; i < 49; ++i) names.push_back("S" + std::to_string(i));
    const std::string id = createPipeline(client, account.token, "Full", names)["id"].asString();
    E2E_ASSERT_DATA(201, client.post(stagesPath(id), Json::object({{"name", "Fiftieth"}}),
                                     bearer(account.token)));
    CRM_ASSERT_ERROR_MESSAGE(
        409, "A pipeline may not have more than 50 stages.",
        client.post(stagesPath(id), Json::object({{"name", "Too many"}}), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(50), stageNames(client, account.token, id).size());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(StagesTest);
