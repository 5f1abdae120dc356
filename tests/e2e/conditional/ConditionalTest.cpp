// Conditional requests on records (docs/api-choices.md "Conditional
// requests"): strong ETags on a record's GET, 304 for If-None-Match, 412 for
// a stale If-Match on PATCH, DELETE and the state actions, nothing written
// on a 412, and the race If-Match exists for: two writers holding the same
// tag, one wins.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <thread>

#include "e2e/common/Api.h"

using namespace rapport::e2e;

namespace {

ServerProcess& crmServer() {
  static ServerProcess server(
      generousSettings({{"modules.enabled", "contacts,companies,pipelines,deals,activities"}}));
  return server;
}

rapport::Headers withTag(const Account& account, const std::string& header,
                         const std::string& tag) {
  return bearer(account.token, {{header, tag}});
}

std::string etagOf(HttpClient& client, const Account& account, const std::string& path) {
  const HttpResult got = client.get(path, bearer(account.token));
  E2E_ASSERT_DATA(200, got);
  const std::string tag = got.header("ETag");
  CPPUNIT_ASSERT_MESSAGE(describe(got),
                         tag.size() == 35 && tag.rfind("\"r", 0) == 0 && tag.back() == '"');
  return tag;
}

std::string createContact(HttpClient& client, const Account& account, const std::string& name) {
  return E2E_ASSERT_DATA(201, client.post("/v1/crm/contacts", Json::object({{"name", name}}),
                                          bearer(account.token)))["id"]
      .asString();
}

struct Pipeline {
  std::string id;
  std::string stageId;
};

Pipeline createPipeline(HttpClient& client, const Account& account) {
  const Json pipeline = E2E_ASSERT_DATA(
      201, client.post("/v1/crm/pipelines",
                       Json::object({{"name", "Sales"},
                                     {"stages", Json::Array{Json::object({{"name", "Lead"}})}}}),
                       bearer(account.token)));
  return {pipeline["id"].asString(), pipeline["stages"].asArray().at(0)["id"].asString()};
}

std::string createDeal(HttpClient& client, const Account& account, const Pipeline& pipeline) {
  return E2E_ASSERT_DATA(201, client.post("/v1/crm/deals",
                                          Json::object({{"title", "Big"},
                                                        {"value", 500},
                                                        {"pipeline_id", pipeline.id},
                                                        {"stage_id", pipeline.stageId}}),
                                          bearer(account.token)))["id"]
      .asString();
}

}  // namespace

class ConditionalTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ConditionalTest);
  CPPUNIT_TEST(testGetSendsAStableStrongETag);
  CPPUNIT_TEST(testIfNoneMatchAnswers304);
  CPPUNIT_TEST(testStaleIfMatchIs412AndWritesNothing);
  CPPUNIT_TEST(testCurrentIfMatchWritesAndChangesTheTag);
  CPPUNIT_TEST(testDeleteHonoursIfMatch);
  CPPUNIT_TEST(testStateActionsHonourIfMatch);
  CPPUNIT_TEST(testEveryRecordsGetTagIsTheOneIfMatchChecks);
  CPPUNIT_TEST(testAStagesTagFollowsItsDeals);
  CPPUNIT_TEST(testStarAbsentRecordAndMalformedLists);
  CPPUNIT_TEST(testListsAndCreationsAreNotConditional);
  CPPUNIT_TEST(testTwoWritersWithTheSameTagOneWins);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testGetSendsAStableStrongETag() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "etag-get");
    const std::string id = createContact(client, account, "Ada");
    const std::string path = "/v1/crm/contacts/" + id;
    const std::string tag = etagOf(client, account, path);
    CPPUNIT_ASSERT_EQUAL(tag, etagOf(client, account, path));
    // Another record, another tag.
    const std::string other = createContact(client, account, "Grace");
    CPPUNIT_ASSERT(tag != etagOf(client, account, "/v1/crm/contacts/" + other));
  }

  void testIfNoneMatchAnswers304() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "etag-304");
    const std::string path = "/v1/crm/contacts/" + createContact(client, account, "Ada");
    const std::string tag = etagOf(client, account, path);
    for (const std::string& value : {tag, "W/" + tag, "\"rother\", " + tag, std::string("*")}) {
      const HttpResult cached = client.get(path, withTag(account, "If-None-Match", value));
      CPPUNIT_ASSERT_EQUAL_MESSAGE(value + " " + describe(cached), 304, cached.status);
      CPPUNIT_ASSERT_EQUAL(std::string(), cached.body);
      CPPUNIT_ASSERT_EQUAL(tag, cached.header("ETag"));
      CPPUNIT_ASSERT(!cached.header("X-Request-Id").empty());
    }
    const HttpResult changed = client.get(path, withTag(account, "If-None-Match", "\"rother\""));
    E2E_ASSERT_DATA(200, changed);
    CPPUNIT_ASSERT_EQUAL(tag, changed.header("ETag"));
  }

  void testStaleIfMatchIs412AndWritesNothing() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "etag-412");
    const std::string path = "/v1/crm/contacts/" + createContact(client, account, "Ada");
    const std::string stale = etagOf(client, account, path);
    E2E_ASSERT_DATA(200,
                    client.patch(path, Json::object({{"name", "Ada L."}}), bearer(account.token)));
    const Json refused =
        E2E_ASSERT_ERROR(412, client.patch(path, Json::object({{"name", "Overwritten"}}),
                                           withTag(account, "If-Match", stale)));
    CPPUNIT_ASSERT_EQUAL(
        std::string("The record has changed since you read it: read it again, then retry with "
                    "its new ETag."),
        refused["message"].asString());
    const Json kept = E2E_ASSERT_DATA(200, client.get(path, bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("Ada L."), kept["name"].asString());
  }

  void testCurrentIfMatchWritesAndChangesTheTag() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "etag-match");
    const std::string path = "/v1/crm/contacts/" + createContact(client, account, "Ada");
    const std::string tag = etagOf(client, account, path);
    const Json updated =
        E2E_ASSERT_DATA(200, client.patch(path, Json::object({{"name", "Ada L."}}),
                                          withTag(account, "If-Match", "\"rother\", " + tag)));
    CPPUNIT_ASSERT_EQUAL(std::string("Ada L."), updated["name"].asString());
    const std::string after = etagOf(client, account, path);
    CPPUNIT_ASSERT(after != tag);
    // A weak tag never satisfies If-Match (strong comparison).
    E2E_ASSERT_ERROR(412, client.patch(path, Json::object({{"name", "x"}}),
                                       withTag(account, "If-Match", "W/" + after)));
  }

  void testDeleteHonoursIfMatch() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "etag-delete");
    const std::string path = "/v1/crm/contacts/" + createContact(client, account, "Ada");
    const std::string tag = etagOf(client, account, path);
    E2E_ASSERT_ERROR(412, client.del(path, withTag(account, "If-Match", "\"rstale\"")));
    E2E_ASSERT_DATA(200, client.get(path, bearer(account.token)));
    E2E_ASSERT_DATA(200, client.del(path, withTag(account, "If-Match", tag)));
    E2E_ASSERT_ERROR(404, client.get(path, bearer(account.token)));
  }

  void testStateActionsHonourIfMatch() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "etag-actions");
    const std::string path =
        "/v1/crm/deals/" + createDeal(client, account, createPipeline(client, account));
    const std::string open = etagOf(client, account, path);
    E2E_ASSERT_DATA(200,
                    client.post(path + "/win", Json::object(), withTag(account, "If-Match", open)));
    // The win changed the deal: the tag read before it is stale for reopen.
    E2E_ASSERT_ERROR(
        412, client.post(path + "/reopen", Json::object(), withTag(account, "If-Match", open)));
    CPPUNIT_ASSERT_EQUAL(
        std::string("won"),
        E2E_ASSERT_DATA(200, client.get(path, bearer(account.token)))["status"].asString());
    E2E_ASSERT_DATA(200, client.post(path + "/reopen", Json::object(),
                                     withTag(account, "If-Match", etagOf(client, account, path))));

    const Json activity =
        E2E_ASSERT_DATA(201, client.post("/v1/crm/activities",
                                         Json::object({{"type", "call"}, {"title", "Call back"}}),
                                         bearer(account.token)));
    const std::string task = "/v1/crm/activities/" + activity["id"].asString();
    E2E_ASSERT_ERROR(412, client.post(task + "/complete", Json::object(),
                                      withTag(account, "If-Match", "\"rstale\"")));
    E2E_ASSERT_DATA(200, client.post(task + "/complete", Json::object(),
                                     withTag(account, "If-Match", etagOf(client, account, task))));
  }

  // For each record type, the tag its GET sends is the one a write checks
  // against (the host's fetch, with augments, shows exactly the GET's data).
  void testEveryRecordsGetTagIsTheOneIfMatchChecks() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "etag-all");
    const rapport::Headers auth = bearer(account.token);
    const Json company = E2E_ASSERT_DATA(
        201, client.post("/v1/crm/companies", Json::object({{"name", "Acme"}}), auth));
    const Pipeline pipeline = createPipeline(client, account);
    // A deal in the pipeline: its counters are augments of the pipeline.
    const std::string dealId = createDeal(client, account, pipeline);
    const Json activity =
        E2E_ASSERT_DATA(201, client.post("/v1/crm/activities",
                                         Json::object({{"type", "note"}, {"title", "Met"}}), auth));
    const std::vector<std::pair<std::string, Json>> records = {
        {"/v1/crm/contacts/" + createContact(client, account, "Ada"),
         Json::object({{"name", "Ada B."}})},
        {"/v1/crm/companies/" + company["id"].asString(), Json::object({{"name", "Acme Ltd"}})},
        {"/v1/crm/pipelines/" + pipeline.id, Json::object({{"name", "Sales EU"}})},
        {"/v1/crm/deals/" + dealId, Json::object({{"title", "Bigger"}})},
        {"/v1/crm/activities/" + activity["id"].asString(), Json::object({{"title", "Met twice"}})},
        {"/v1/crm/pipelines/" + pipeline.id + "/stages/" + pipeline.stageId,
         Json::object({{"name", "Qualified"}})}};
    for (const auto& [path, change] : records) {
      const std::string tag = etagOf(client, account, path);
      const HttpResult written = client.patch(path, change, withTag(account, "If-Match", tag));
      CPPUNIT_ASSERT_EQUAL_MESSAGE(path + " " + describe(written), 200, written.status);
      E2E_ASSERT_ERROR(412, client.patch(path, change, withTag(account, "If-Match", tag)));
    }
  }

  // A stage's GET shows the deal counters of its pipeline: a deal entering
  // the stage changes its tag, so a write with the tag read before is 412.
  void testAStagesTagFollowsItsDeals() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "etag-stage");
    const Pipeline pipeline = createPipeline(client, account);
    const std::string path = "/v1/crm/pipelines/" + pipeline.id + "/stages/" + pipeline.stageId;
    const std::string before = etagOf(client, account, path);
    CPPUNIT_ASSERT_EQUAL(304, client.get(path, withTag(account, "If-None-Match", before)).status);
    createDeal(client, account, pipeline);
    const std::string after = etagOf(client, account, path);
    CPPUNIT_ASSERT(after != before);
    E2E_ASSERT_ERROR(412, client.patch(path, Json::object({{"name", "Won't"}}),
                                       withTag(account, "If-Match", before)));
    E2E_ASSERT_ERROR(412, client.del(path, withTag(account, "If-Match", before)));
    E2E_ASSERT_DATA(200, client.patch(path, Json::object({{"probability", 40}}),
                                      withTag(account, "If-Match", after)));
    CPPUNIT_ASSERT_EQUAL(
        std::string("Lead"),
        E2E_ASSERT_DATA(200, client.get(path, bearer(account.token)))["name"].asString());
  }

  void testStarAbsentRecordAndMalformedLists() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "etag-edge");
    const std::string path = "/v1/crm/contacts/" + createContact(client, account, "Ada");
    E2E_ASSERT_DATA(200, client.patch(path, Json::object({{"name", "Any"}}),
                                      withTag(account, "If-Match", "*")));
    // No such record: the condition is ignored and the 404 answers.
    E2E_ASSERT_ERROR(404,
                     client.patch("/v1/crm/contacts/cont_missing", Json::object({{"name", "x"}}),
                                  withTag(account, "If-Match", "\"rabc\"")));
    for (const char* malformed : {"rabc", "\"unterminated", "\"a\" \"b\"", "W/rabc", ""}) {
      const Json error =
          E2E_ASSERT_ERROR(400, client.patch(path, Json::object({{"name", "x"}}),
                                             withTag(account, "If-Match", malformed)));
      CPPUNIT_ASSERT_EQUAL(std::string("The If-Match header is not a list of entity tags."),
                           error["message"].asString());
    }
    E2E_ASSERT_ERROR(400, client.get(path, withTag(account, "If-None-Match", "nope")));
    CPPUNIT_ASSERT_EQUAL(
        std::string("Any"),
        E2E_ASSERT_DATA(200, client.get(path, bearer(account.token)))["name"].asString());
  }

  void testListsAndCreationsAreNotConditional() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "etag-list");
    createContact(client, account, "Ada");
    const HttpResult list = client.get("/v1/crm/contacts", bearer(account.token));
    E2E_ASSERT_DATA(200, list);
    CPPUNIT_ASSERT(!list.hasHeader("ETag"));
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", withTag(account, "If-None-Match", "*")));
    E2E_ASSERT_DATA(201, client.post("/v1/crm/contacts", Json::object({{"name", "B"}}),
                                     withTag(account, "If-Match", "\"rstale\"")));
  }

  // Two clients read the same version and both write with its tag at once:
  // exactly one write lands, the other is told the record changed.
  void testTwoWritersWithTheSameTagOneWins() {
    HttpClient setup(crmServer().port());
    const Account account = registerUser(setup, "etag-race");
    for (int round = 0; round < 5; ++round) {
      const std::string path = "/v1/crm/contacts/" + createContact(setup, account, "Ada");
      const std::string tag = etagOf(setup, account, path);
      std::atomic<int> ok{0}, refused{0}, other{0};
      std::vector<std::thread> writers;
      for (int w = 0; w < 2; ++w) {
        writers.emplace_back([&, w] {
          HttpClient client(crmServer().port());
          const HttpResult r =
              client.patch(path, Json::object({{"name", "Writer " + std::to_string(w)}}),
                           withTag(account, "If-Match", tag));
          (r.status == 200 ? ok : r.status == 412 ? refused : other)++;
        });
      }
      for (auto& t : writers) t.join();
      CPPUNIT_ASSERT_EQUAL(1, ok.load());
      CPPUNIT_ASSERT_EQUAL(1, refused.load());
      CPPUNIT_ASSERT_EQUAL(0, other.load());
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConditionalTest);
