// The default pipeline (decisions §7): at most one per company, the first is
// the default whatever it sends, making one default clears the others,
// clearing it leaves none, deleting it promotes the oldest remaining one;
// racing writes keep exactly one (both engines).
#include <cppunit/extensions/HelperMacros.h>

#include <thread>

#include "e2e/pipelines/PipelinesSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::pipelines;

namespace {

// The ids of the pipelines the API shows as default (one page of 100).
Names shownDefaults(HttpClient& client, const std::string& token) {
  Names ids;
  const Json list = getBody(client, token, kPipelines + "?per_page=100");
  for (const Json& pipeline : list["data"].asArray()) {
    if (pipeline["is_default"] == Json(true)) ids.push_back(pipeline["id"].asString());
  }
  return ids;
}

}  // namespace

class PipelinesDefaultTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(PipelinesDefaultTest);
  CPPUNIT_TEST(testFirstIsDefaultWhateverItSends);
  CPPUNIT_TEST(testMakingOneDefaultClearsTheOthers);
  CPPUNIT_TEST(testClearingTheDefaultLeavesNone);
  CPPUNIT_TEST(testDeletingTheDefaultPromotesTheOldest);
  CPPUNIT_TEST(testConcurrentFirstCreatesGiveOneDefault);
  CPPUNIT_TEST(testConcurrentSwitchesGiveOneDefault);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testFirstIsDefaultWhateverItSends() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "default-first");
    const Json first = createPipeline(client, account.token,
                                      Json::object({{"name", "First"}, {"is_default", false}}));
    CPPUNIT_ASSERT(first["is_default"] == Json(true));
    const Json second = createPipeline(client, account.token, "Second");
    CPPUNIT_ASSERT(second["is_default"] == Json(false));
    const Json third = createPipeline(client, account.token,
                                      Json::object({{"name", "Third"}, {"is_default", false}}));
    CPPUNIT_ASSERT(third["is_default"] == Json(false));
    CPPUNIT_ASSERT(shownDefaults(client, account.token) == (Names{first["id"].asString()}));
    // Each company has its own first pipeline.
    const Account other = registerUser(client, "default-first-other");
    CPPUNIT_ASSERT(createPipeline(client, other.token, "Theirs")["is_default"] == Json(true));
    CPPUNIT_ASSERT(shownDefaults(client, account.token) == (Names{first["id"].asString()}));
  }

  void testMakingOneDefaultClearsTheOthers() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "default-switch");
    const Json first = createPipeline(client, account.token, "First");
    const Json second = createPipeline(client, account.token,
                                       Json::object({{"name", "Second"}, {"is_default", true}}));
    CPPUNIT_ASSERT(second["is_default"] == Json(true));
    const Json firstNow = readPipeline(client, account.token, first["id"].asString());
    CPPUNIT_ASSERT(firstNow["is_default"] == Json(false));
    CPPUNIT_ASSERT(firstNow["updated_at"].asString() > first["updated_at"].asString());
    CPPUNIT_ASSERT(shownDefaults(client, account.token) == (Names{second["id"].asString()}));

    // PATCH makes the first one default again, clearing the second.
    const Json patched = E2E_ASSERT_DATA(
        200, client.patch(pipelinePath(first["id"].asString()),
                          Json::object({{"is_default", true}}), bearer(account.token)));
    CPPUNIT_ASSERT(patched["is_default"] == Json(true));
    CPPUNIT_ASSERT(shownDefaults(client, account.token) == (Names{first["id"].asString()}));
    // Making the default default again changes nothing else.
    E2E_ASSERT_DATA(200, client.patch(pipelinePath(first["id"].asString()),
                                      Json::object({{"is_default", true}}), bearer(account.token)));
    CPPUNIT_ASSERT(shownDefaults(client, account.token) == (Names{first["id"].asString()}));
    CPPUNIT_ASSERT(defaultIds(account.companyId) == (Names{first["id"].asString()}));
  }

  void testClearingTheDefaultLeavesNone() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "default-clear");
    const Json first = createPipeline(client, account.token, "First");
    const Json second = createPipeline(client, account.token, "Second");
    // false on a pipeline that is not the default: nothing changes.
    E2E_ASSERT_DATA(200,
                    client.patch(pipelinePath(second["id"].asString()),
                                 Json::object({{"is_default", false}}), bearer(account.token)));
    CPPUNIT_ASSERT(shownDefaults(client, account.token) == (Names{first["id"].asString()}));
    const Json cleared = E2E_ASSERT_DATA(
        200, client.patch(pipelinePath(first["id"].asString()),
                          Json::object({{"is_default", false}}), bearer(account.token)));
    CPPUNIT_ASSERT(cleared["is_default"] == Json(false));
    CPPUNIT_ASSERT(shownDefaults(client, account.token).empty());
    // Not the first pipeline any more: a new one is not default unless asked.
    CPPUNIT_ASSERT(createPipeline(client, account.token, "Third")["is_default"] == Json(false));
    CPPUNIT_ASSERT(shownDefaults(client, account.token).empty());
    const Json fourth = createPipeline(client, account.token,
                                       Json::object({{"name", "Fourth"}, {"is_default", true}}));
    CPPUNIT_ASSERT(shownDefaults(client, account.token) == (Names{fourth["id"].asString()}));
  }

  void testDeletingTheDefaultPromotesTheOldest() {
    HttpClient client(pipelinesServer().port());
    const Account account = registerUser(client, "default-delete");
    const Headers auth = bearer(account.token);
    const std::string oldest = createPipeline(client, account.token, "Oldest")["id"].asString();
    const std::string middle = createPipeline(client, account.token, "Middle")["id"].asString();
    const std::string newest =
        createPipeline(client, account.token,
                       Json::object({{"name", "Newest"}, {"is_default", true}}))["id"]
            .asString();
    // Deleting a pipeline that is not the default leaves the default alone.
    E2E_ASSERT_DATA(200, client.del(pipelinePath(middle), auth));
    CPPUNIT_ASSERT(shownDefaults(client, account.token) == (Names{newest}));
    // Deleting the default makes the oldest remaining one the default.
    const std::string another = createPipeline(client, account.token, "Another")["id"].asString();
    E2E_ASSERT_DATA(200, client.del(pipelinePath(newest), auth));
    CPPUNIT_ASSERT(shownDefaults(client, account.token) == (Names{oldest}));
    E2E_ASSERT_DATA(200, client.del(pipelinePath(oldest), auth));
    CPPUNIT_ASSERT(shownDefaults(client, account.token) == (Names{another}));
    // The last one gone, the next pipeline is a first one again.
    E2E_ASSERT_DATA(200, client.del(pipelinePath(another), auth));
    CPPUNIT_ASSERT(shownDefaults(client, account.token).empty());
    const Json again = createPipeline(client, account.token,
                                      Json::object({{"name", "Again"}, {"is_default", false}}));
    CPPUNIT_ASSERT(again["is_default"] == Json(true));
  }

  // Six first creates of one company at the same moment: every one succeeds
  // and exactly one is the default.
  void testConcurrentFirstCreatesGiveOneDefault() {
    for (int round = 0; round < 3; ++round) {
      HttpClient setup(pipelinesServer().port());
      const Account account = registerUser(setup, "default-race");
      constexpr std::size_t kClients = 6;
      std::vector<int> statuses(kClients, 0);
      std::vector<std::string> bodies(kClients);
      std::vector<std::thread> threads;
      for (std::size_t i = 0; i < kClients; ++i) {
        threads.emplace_back([&, i] {
          HttpClient client(pipelinesServer().port());
          const HttpResult result = client.post(
              kPipelines,
              Json::object({{"name", "Racer " + std::to_string(i)}, {"is_default", i % 2 == 0}}),
              bearer(account.token));
          statuses[i] = result.status;
          bodies[i] = result.body;
        });
      }
      for (auto& thread : threads) thread.join();
      int defaults = 0;
      for (std::size_t i = 0; i < kClients; ++i) {
        CPPUNIT_ASSERT_EQUAL_MESSAGE(bodies[i], 201, statuses[i]);
        if (Json::parse(bodies[i])["data"]["is_default"] == Json(true)) ++defaults;
      }
      // At least one answered as default (later ones may have cleared it).
      CPPUNIT_ASSERT(defaults >= 1);
      CPPUNIT_ASSERT_EQUAL(std::size_t(1), shownDefaults(setup, account.token).size());
      CPPUNIT_ASSERT_EQUAL(std::size_t(1), defaultIds(account.companyId).size());
      CPPUNIT_ASSERT(getBody(setup, account.token, kPipelines)["meta"]["total"] ==
                     Json(static_cast<int>(kClients)));
    }
  }

  // Several pipelines made default at the same moment: one default remains.
  void testConcurrentSwitchesGiveOneDefault() {
    HttpClient setup(pipelinesServer().port());
    const Account account = registerUser(setup, "default-switch-race");
    constexpr std::size_t kClients = 6;
    Names ids;
    for (std::size_t i = 0; i < kClients; ++i) {
      ids.push_back(createPipeline(setup, account.token, "P" + std::to_string(i))["id"].asString());
    }
    std::vector<int> statuses(kClients, 0);
    std::vector<std::string> bodies(kClients);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < kClients; ++i) {
      threads.emplace_back([&, i] {
        HttpClient client(pipelinesServer().port());
        const HttpResult result = client.patch(
            pipelinePath(ids[i]), Json::object({{"is_default", true}}), bearer(account.token));
        statuses[i] = result.status;
        bodies[i] = result.body;
      });
    }
    for (auto& thread : threads) thread.join();
    for (std::size_t i = 0; i < kClients; ++i) {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(bodies[i], 200, statuses[i]);
      CPPUNIT_ASSERT(Json::parse(bodies[i])["data"]["is_default"] == Json(true));
    }
    const Names shown = shownDefaults(setup, account.token);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), shown.size());
    CPPUNIT_ASSERT(defaultIds(account.companyId) == shown);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(PipelinesDefaultTest);
