// The pipelines' deal counters and deletion guards, which the deals module
// provides (decisions §7; docs/modules/deals.md "Pipeline counters"):
// deals_count and deals_value of open deals on each pipeline and stage, in
// GET /crm/pipelines and GET /crm/pipelines/{id}, after every kind of change;
// 409 deleting a pipeline or stage that has deals.
#include <cppunit/extensions/HelperMacros.h>

#include <functional>
#include <map>
#include <stdexcept>
#include <thread>

#include "e2e/companies/Together.h"
#include "e2e/deals/DealsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {

// Expected (count, value) per stage, in stage order.
using Totals = std::vector<std::pair<std::int64_t, std::int64_t>>;

// Asserts the counters of `pipeline` (a pipeline object with its stages).
void assertCounters(const Json& pipeline, const Totals& stages, const CppUnit::SourceLine& line) {
  std::int64_t count = 0, value = 0;
  const Json::Array& shown = pipeline["stages"].asArray();
  CppUnit::Asserter::failIf(shown.size() != stages.size(), "stage count: " + pipeline.dump(), line);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const bool ok = shown[i]["deals_count"] == Json(stages[i].first) &&
                    shown[i]["deals_value"] == Json(stages[i].second);
    CppUnit::Asserter::failIf(!ok, "stage " + std::to_string(i) + ": " + pipeline.dump(), line);
    count += stages[i].first;
    value += stages[i].second;
  }
  const bool ok = pipeline["deals_count"] == Json(count) && pipeline["deals_value"] == Json(value);
  CppUnit::Asserter::failIf(!ok, "pipeline totals: " + pipeline.dump(), line);
}

// Checks the counters in both GET /crm/pipelines/{id} and the list.
void checkCounters(HttpClient& client, const std::string& token, const Pipeline& pipeline,
                   const Totals& stages, const CppUnit::SourceLine& line) {
  const Json read =
      E2E_ASSERT_DATA(200, client.get("/v1/crm/pipelines/" + pipeline.id, bearer(token)));
  assertCounters(read, stages, line);
  const Json list = getBody(client, token, "/v1/crm/pipelines?per_page=100");
  bool found = false;
  for (const Json& item : list["data"].asArray()) {
    if (item["id"] == Json(pipeline.id)) {
      found = true;
      assertCounters(item, stages, line);
    }
  }
  CppUnit::Asserter::failIf(!found, "pipeline not listed", line);
}

#define CHECK_COUNTERS(client, token, pipeline, ...) \
  checkCounters((client), (token), (pipeline), Totals __VA_ARGS__, CPPUNIT_SOURCELINE())

}  // namespace

class DealsCountersTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DealsCountersTest);
  CPPUNIT_TEST(testCountersFollowEveryChange);
  CPPUNIT_TEST(testCountersAreTheTenants);
  CPPUNIT_TEST(testConcurrentWritesKeepCountersExact);
  CPPUNIT_TEST(testOppositeMovesNeverConflict);
  CPPUNIT_TEST(testPipelineWithDealsCannotBeDeleted);
  CPPUNIT_TEST(testStageWithDealsCannotBeDeleted);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCountersFollowEveryChange() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-counters");
    const std::string& token = account.token;
    const Pipeline sales = salesPipeline(client, token);
    const Pipeline other = createPipeline(client, token, "Other", {{"A", 10}, {"B", 60}});
    CHECK_COUNTERS(client, token, sales, ({{0, 0}, {0, 0}, {0, 0}}));
    CHECK_COUNTERS(client, token, other, ({{0, 0}, {0, 0}}));

    // Create.
    const Json a = dealIn(client, token, sales, 0, "A", 100);
    const Json b = dealIn(client, token, sales, 0, "B", 250);
    const Json c = dealIn(client, token, sales, 1, "C", 1000);
    CHECK_COUNTERS(client, token, sales, ({{2, 350}, {1, 1000}, {0, 0}}));
    // Move within the pipeline.
    E2E_ASSERT_DATA(
        200, client.patch(dealPath(a, "/stage"), Json::object({{"stage_id", sales.stages[2]}}),
                          bearer(token)));
    CHECK_COUNTERS(client, token, sales, ({{1, 250}, {1, 1000}, {1, 100}}));
    // Move across pipelines.
    E2E_ASSERT_DATA(
        200, client.patch(dealPath(c, "/stage"),
                          Json::object({{"stage_id", other.stages[1]}, {"pipeline_id", other.id}}),
                          bearer(token)));
    CHECK_COUNTERS(client, token, sales, ({{1, 250}, {0, 0}, {1, 100}}));
    CHECK_COUNTERS(client, token, other, ({{0, 0}, {1, 1000}}));
    // PATCH of the value.
    E2E_ASSERT_DATA(200, client.patch(dealPath(b), Json::object({{"value", 400}}), bearer(token)));
    CHECK_COUNTERS(client, token, sales, ({{1, 400}, {0, 0}, {1, 100}}));
    // A PATCH that leaves the value alone changes nothing.
    E2E_ASSERT_DATA(200, client.patch(dealPath(b), Json::object({{"title", "B2"}}), bearer(token)));
    CHECK_COUNTERS(client, token, sales, ({{1, 400}, {0, 0}, {1, 100}}));
    // Win and lose take deals out (open deals only)...
    E2E_ASSERT_DATA(200, client.post(dealPath(a, "/win"), Json::object(), bearer(token)));
    CHECK_COUNTERS(client, token, sales, ({{1, 400}, {0, 0}, {0, 0}}));
    E2E_ASSERT_DATA(200, client.post(dealPath(c, "/lose"), Json::object(), bearer(token)));
    CHECK_COUNTERS(client, token, other, ({{0, 0}, {0, 0}}));
    // ... a PATCH of a closed deal's value does not count ...
    E2E_ASSERT_DATA(200, client.patch(dealPath(a), Json::object({{"value", 999}}), bearer(token)));
    CHECK_COUNTERS(client, token, sales, ({{1, 400}, {0, 0}, {0, 0}}));
    // ... reopen brings them back, with their current value.
    E2E_ASSERT_DATA(200, client.post(dealPath(a, "/reopen"), Json::object(), bearer(token)));
    CHECK_COUNTERS(client, token, sales, ({{1, 400}, {0, 0}, {1, 999}}));
    E2E_ASSERT_DATA(200, client.post(dealPath(c, "/reopen"), Json::object(), bearer(token)));
    CHECK_COUNTERS(client, token, other, ({{0, 0}, {1, 1000}}));
    // Delete: open deals leave the counters; closed ones were not in them.
    E2E_ASSERT_DATA(200, client.del(dealPath(b), bearer(token)));
    CHECK_COUNTERS(client, token, sales, ({{0, 0}, {0, 0}, {1, 999}}));
    E2E_ASSERT_DATA(200, client.post(dealPath(c, "/win"), Json::object(), bearer(token)));
    E2E_ASSERT_DATA(200, client.del(dealPath(c), bearer(token)));
    CHECK_COUNTERS(client, token, other, ({{0, 0}, {0, 0}}));
    CHECK_COUNTERS(client, token, sales, ({{0, 0}, {0, 0}, {1, 999}}));
  }

  void testCountersAreTheTenants() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-counters-a");
    const Account other = registerUser(client, "deals-counters-b");
    const Pipeline mine = salesPipeline(client, account.token);
    const Pipeline theirs = salesPipeline(client, other.token);
    dealIn(client, account.token, mine, 1, "Mine", 10);
    dealIn(client, other.token, theirs, 1, "Theirs", 20);
    dealIn(client, other.token, theirs, 1, "Theirs too", 30);
    CHECK_COUNTERS(client, account.token, mine, ({{0, 0}, {1, 10}, {0, 0}}));
    CHECK_COUNTERS(client, other.token, theirs, ({{0, 0}, {2, 50}, {0, 0}}));
  }

  // Writers of one tenant at once (creates, moves, wins, value changes): the
  // totals are spread over slots on PostgreSQL, a transaction aborted for a
  // deadlock runs again; the counters stay exact and no request fails.
  void testConcurrentWritesKeepCountersExact() {
    HttpClient main(dealsServer().port());
    const Account account = registerUser(main, "deals-burst");
    const Pipeline pipeline = salesPipeline(main, account.token);
    constexpr int kThreads = 6;
    constexpr int kEach = 6;
    std::vector<std::vector<Json>> made(kThreads);
    std::vector<std::string> failures(kThreads);
    const auto inParallel = [&](const std::function<void(HttpClient&, int)>& work) {
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          try {
            HttpClient client(dealsServer().port());
            work(client, t);
          } catch (const std::exception& e) {
            failures[t] = e.what();
          }
        });
      }
      for (auto& thread : threads) thread.join();
      for (const std::string& failure : failures) CPPUNIT_ASSERT_EQUAL(std::string(), failure);
    };
    const auto expect = [](int status, const HttpResult& result) {
      if (result.status != status) throw std::runtime_error(describe(result));
      return result.json()["data"];
    };
    inParallel([&](HttpClient& client, int t) {
      for (int i = 0; i < kEach; ++i) {
        made[t].push_back(
            expect(201, client.post("/v1/crm/deals",
                                    Json::object({{"title", "Burst " + std::to_string(t)},
                                                  {"pipeline_id", pipeline.id},
                                                  {"stage_id", pipeline.stages[0]},
                                                  {"value", 10}}),
                                    bearer(account.token))));
      }
    });
    CHECK_COUNTERS(main, account.token, pipeline,
                   ({{kThreads * kEach, kThreads * kEach * 10}, {0, 0}, {0, 0}}));
    // Per thread: deal 0 moves to stage 1, deal 1 to stage 2, deal 2 is won,
    // deal 3 goes to 15 cents, deal 4 is deleted, deal 5 stays.
    inParallel([&](HttpClient& client, int t) {
      const auto& deals = made[t];
      expect(200,
             client.patch(dealPath(deals[0], "/stage"),
                          Json::object({{"stage_id", pipeline.stages[1]}}), bearer(account.token)));
      expect(200,
             client.patch(dealPath(deals[1], "/stage"),
                          Json::object({{"stage_id", pipeline.stages[2]}}), bearer(account.token)));
      expect(200, client.post(dealPath(deals[2], "/win"), Json::object(), bearer(account.token)));
      expect(200, client.patch(dealPath(deals[3]), Json::object({{"value", 15}}),
                               bearer(account.token)));
      expect(200, client.del(dealPath(deals[4]), bearer(account.token)));
    });
    CHECK_COUNTERS(main, account.token, pipeline,
                   ({{2 * kThreads, kThreads * (15 + 10)},
                     {kThreads, kThreads * 10},
                     {kThreads, kThreads * 10}}));
  }

  // Moves between two stages in both directions at once change the same two
  // counter rows from opposite ends; on PostgreSQL the trigger locks them in
  // one order, so no transaction ever deadlocks and runs again (rapportd logs
  // every run again), and the counters end exact.
  void testOppositeMovesNeverConflict() {
    HttpClient main(dealsServer().port());
    const Account account = registerUser(main, "deals-opposite");
    const Pipeline pipeline = salesPipeline(main, account.token);
    constexpr std::size_t kThreads = 8;
    constexpr int kRounds = 8;
    std::vector<std::string> deals;
    for (std::size_t t = 0; t < kThreads; ++t) {
      deals.push_back(create(main, account.token, "/v1/crm/deals",
                             Json::object({{"title", "Opposite " + std::to_string(t)},
                                           {"pipeline_id", pipeline.id},
                                           {"stage_id", pipeline.stages[t % 2]},
                                           {"value", 100}}))["id"]
                          .asString());
    }
    const std::size_t logBefore = dealsServer().log().size();
    const auto results =
        sendTogether(dealsServer().port(), kThreads, [&](HttpClient& client, std::size_t t) {
          HttpResult last;
          for (int round = 0; round < kRounds && (round == 0 || last.status == 200); ++round) {
            // Even threads go 0 -> 1 -> 0..., odd ones 1 -> 0 -> 1...
            const std::string& to = pipeline.stages[(t + static_cast<std::size_t>(round) + 1) % 2];
            last = client.patch("/v1/crm/deals/" + deals[t] + "/stage",
                                Json::object({{"stage_id", to}}), bearer(account.token));
          }
          return last;
        });
    for (const HttpResult& result : results) E2E_ASSERT_STATUS(200, result);
    const std::string log = dealsServer().log().substr(logBefore);
    CPPUNIT_ASSERT_MESSAGE(log, log.find("transaction conflict") == std::string::npos);
    // kRounds is even: every deal is back in its first stage.
    CHECK_COUNTERS(
        main, account.token, pipeline,
        ({{kThreads / 2, kThreads / 2 * 100}, {kThreads / 2, kThreads / 2 * 100}, {0, 0}}));
  }

  void testPipelineWithDealsCannotBeDeleted() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-guard-pipeline");
    const std::string& token = account.token;
    salesPipeline(client, token, "Default");  // the first pipeline is the default
    const Pipeline pipeline = salesPipeline(client, token, "Guarded");
    const Json deal = dealIn(client, token, pipeline, 2, "Holds it");
    const std::string path = "/v1/crm/pipelines/" + pipeline.id;
    CRM_ASSERT_ERROR_MESSAGE(409, "The pipeline has deals.", client.del(path, bearer(token)));
    // A closed deal holds it too.
    E2E_ASSERT_DATA(200, client.post(dealPath(deal, "/lose"), Json::object(), bearer(token)));
    CRM_ASSERT_ERROR_MESSAGE(409, "The pipeline has deals.", client.del(path, bearer(token)));
    E2E_ASSERT_DATA(200, client.get(path, bearer(token)));
    CPPUNIT_ASSERT_EQUAL(pipeline.id, readDeal(client, token, deal)["pipeline_id"].asString());
    E2E_ASSERT_DATA(200, client.del(dealPath(deal), bearer(token)));
    E2E_ASSERT_DATA(200, client.del(path, bearer(token)));
    E2E_ASSERT_ERROR(404, client.get(path, bearer(token)));
  }

  void testStageWithDealsCannotBeDeleted() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-guard-stage");
    const std::string& token = account.token;
    const Pipeline pipeline = salesPipeline(client, token);
    const Json deal = dealIn(client, token, pipeline, 1, "Holds it");
    const std::string path = "/v1/crm/pipelines/" + pipeline.id + "/stages/" + pipeline.stages[1];
    CRM_ASSERT_ERROR_MESSAGE(409, "The stage has deals.", client.del(path, bearer(token)));
    E2E_ASSERT_DATA(200, client.post(dealPath(deal, "/win"), Json::object(), bearer(token)));
    CRM_ASSERT_ERROR_MESSAGE(409, "The stage has deals.", client.del(path, bearer(token)));
    // A stage without deals goes.
    E2E_ASSERT_STATUS(
        200, client.del("/v1/crm/pipelines/" + pipeline.id + "/stages/" + pipeline.stages[2],
                        bearer(token)));
    E2E_ASSERT_DATA(200, client.post(dealPath(deal, "/reopen"), Json::object(), bearer(token)));
    E2E_ASSERT_DATA(200,
                    client.patch(dealPath(deal, "/stage"),
                                 Json::object({{"stage_id", pipeline.stages[0]}}), bearer(token)));
    E2E_ASSERT_STATUS(200, client.del(path, bearer(token)));
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Stage not found.",
        client.patch(dealPath(deal, "/stage"), Json::object({{"stage_id", pipeline.stages[1]}}),
                     bearer(token)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DealsCountersTest);
