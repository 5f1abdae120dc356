// The activity's states (API States and transitions, Activity; decisions §7,
// §8): pending on create, complete (pending -> completed, completed_at set,
// crm.activity.completed), reopen (completed -> pending, completed_at
// cleared, crm.activity.updated), the refused transitions (409) and the
// read-only status fields of a PATCH.
#include <cppunit/extensions/HelperMacros.h>

#include <latch>
#include <thread>

#include "e2e/activities/ActivitiesSuite.h"
#include "rapport/time.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

class ActivitiesStatusTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ActivitiesStatusTest);
  CPPUNIT_TEST(testCompleteAPendingActivity);
  CPPUNIT_TEST(testCompleteACompletedActivityIs409);
  CPPUNIT_TEST(testReopenACompletedActivity);
  CPPUNIT_TEST(testReopenAPendingActivityIs409);
  CPPUNIT_TEST(testRoundTrips);
  CPPUNIT_TEST(testPatchKeepsTheStatus);
  CPPUNIT_TEST(testConcurrentCompletesCompleteOnce);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCompleteAPendingActivity() {
    ServerProcess& server = activitiesServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "act-complete");
    const Json activity = createActivity(
        client, account.token,
        Json::object({{"type", "task"}, {"title", "Send contract"}, {"duration_minutes", 15}}));
    const std::string id = activity["id"].asString();
    const std::int64_t before = rapport::nowMicros();
    // A body is ignored (completed_at is the server's time).
    const HttpResult result =
        client.post("/v1/crm/activities/" + id + "/complete",
                    Json::object({{"completed_at", "2000-01-01T00:00:00Z"}, {"status", "pending"}}),
                    bearer(account.token));
    const Json completed = E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    CPPUNIT_ASSERT_EQUAL(std::string("completed"), completed["status"].asString());
    E2E_ASSERT_ISO_UTC(completed["completed_at"]);
    const std::int64_t at = *rapport::parseIsoTimestamp(completed["completed_at"].asString());
    CPPUNIT_ASSERT(at >= before - 1'000'000 && at <= rapport::nowMicros() + 1'000'000);
    CPPUNIT_ASSERT(completed["updated_at"] == completed["completed_at"]);
    // Everything else is as it was.
    Json expected = activity;
    expected.set("status", "completed");
    expected.set("completed_at", completed["completed_at"]);
    expected.set("updated_at", completed["updated_at"]);
    CPPUNIT_ASSERT_EQUAL(expected.dump(), completed.dump());
    CPPUNIT_ASSERT_EQUAL(completed.dump(), readActivity(client, account.token, id).dump());

    const auto events = eventsAbout(server, account.companyId, "crm.activity.completed", id);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), events.size());
    CPPUNIT_ASSERT_EQUAL(completed.dump(), events.front().dump());
  }

  void testCompleteACompletedActivityIs409() {
    ServerProcess& server = activitiesServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "act-complete-409");
    const std::string id = createCall(client, account.token, "Twice")["id"].asString();
    const std::string path = "/v1/crm/activities/" + id + "/complete";
    const Json completed =
        E2E_ASSERT_DATA(200, client.post(path, Json::object(), bearer(account.token)));
    CRM_ASSERT_ERROR_MESSAGE(409, "The activity is already completed.",
                             client.post(path, Json::object(), bearer(account.token)));
    // Unchanged, and one event only.
    CPPUNIT_ASSERT_EQUAL(completed.dump(), readActivity(client, account.token, id).dump());
    CPPUNIT_ASSERT_EQUAL(
        std::size_t(1),
        eventsAbout(server, account.companyId, "crm.activity.completed", id).size());
  }

  void testReopenACompletedActivity() {
    ServerProcess& server = activitiesServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "act-reopen");
    const Json activity = createActivity(
        client, account.token,
        Json::object(
            {{"type", "meeting"}, {"title", "Demo"}, {"scheduled_at", "2027-01-05T14:00:00Z"}}));
    const std::string id = activity["id"].asString();
    const std::string path = "/v1/crm/activities/" + id;
    const Json completed = E2E_ASSERT_DATA(
        200, client.post(path + "/complete", Json::object(), bearer(account.token)));
    const HttpResult result = client.post(path + "/reopen", Json::object(), bearer(account.token));
    const Json reopened = E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), reopened["status"].asString());
    CPPUNIT_ASSERT(reopened["completed_at"].isNull());
    CPPUNIT_ASSERT(reopened["updated_at"] != completed["updated_at"]);
    Json expected = activity;
    expected.set("updated_at", reopened["updated_at"]);
    CPPUNIT_ASSERT_EQUAL(expected.dump(), reopened.dump());
    CPPUNIT_ASSERT_EQUAL(reopened.dump(), readActivity(client, account.token, id).dump());

    // Reopen records crm.activity.updated with the reopened activity.
    const auto events = eventsAbout(server, account.companyId, "crm.activity.updated", id);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), events.size());
    CPPUNIT_ASSERT_EQUAL(reopened.dump(), events.front().dump());
  }

  void testReopenAPendingActivityIs409() {
    ServerProcess& server = activitiesServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "act-reopen-409");
    const Json activity = createCall(client, account.token, "Never done");
    const std::string id = activity["id"].asString();
    CRM_ASSERT_ERROR_MESSAGE(
        409, "The activity is not completed.",
        client.post("/v1/crm/activities/" + id + "/reopen", Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(activity.dump(), readActivity(client, account.token, id).dump());
    CPPUNIT_ASSERT(eventsAbout(server, account.companyId, "crm.activity.updated", id).empty());
  }

  void testRoundTrips() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-roundtrip");
    const std::string id = createCall(client, account.token, "Loop")["id"].asString();
    const std::string path = "/v1/crm/activities/" + id;
    for (int round = 0; round < 2; ++round) {
      CPPUNIT_ASSERT_EQUAL(std::string("completed"),
                           E2E_ASSERT_DATA(200, client.post(path + "/complete", Json::object(),
                                                            bearer(account.token)))["status"]
                               .asString());
      E2E_ASSERT_ERROR(409, client.post(path + "/complete", Json::object(), bearer(account.token)));
      CPPUNIT_ASSERT_EQUAL(std::string("pending"),
                           E2E_ASSERT_DATA(200, client.post(path + "/reopen", Json::object(),
                                                            bearer(account.token)))["status"]
                               .asString());
      E2E_ASSERT_ERROR(409, client.post(path + "/reopen", Json::object(), bearer(account.token)));
    }
  }

  void testPatchKeepsTheStatus() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-patch-status");
    const std::string id = createCall(client, account.token, "Done")["id"].asString();
    const std::string path = "/v1/crm/activities/" + id;
    const Json completed = E2E_ASSERT_DATA(
        200, client.post(path + "/complete", Json::object(), bearer(account.token)));
    // status and completed_at are read-only: ignored beside a real change.
    const Json patched = E2E_ASSERT_DATA(200, client.patch(path,
                                                           Json::object({{"title", "Done, noted"},
                                                                         {"status", "pending"},
                                                                         {"completed_at", Json()}}),
                                                           bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("Done, noted"), patched["title"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("completed"), patched["status"].asString());
    CPPUNIT_ASSERT(patched["completed_at"] == completed["completed_at"]);
  }

  // Two clients complete the same activities at once: the row lock makes
  // exactly one of each pair succeed (200) and the other see it completed
  // (409), with one crm.activity.completed per activity.
  void testConcurrentCompletesCompleteOnce() {
    ServerProcess& server = activitiesServer();
    HttpClient setup(server.port());
    const Account account = registerUser(setup, "act-complete-race");
    std::vector<std::string> ids;
    for (int i = 0; i < 15; ++i)
      ids.push_back(createCall(setup, account.token, "R")["id"].asString());
    std::latch start(2);
    std::vector<std::vector<int>> statuses(2);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        HttpClient client(server.port());
        start.arrive_and_wait();
        for (const std::string& id : ids) {
          statuses[t].push_back(client
                                    .post("/v1/crm/activities/" + id + "/complete", Json::object(),
                                          bearer(account.token))
                                    .status);
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::string pair =
          std::to_string(statuses[0].at(i)) + " " + std::to_string(statuses[1].at(i));
      CPPUNIT_ASSERT_MESSAGE(pair, pair == "200 409" || pair == "409 200");
      CPPUNIT_ASSERT_EQUAL(
          std::size_t(1),
          eventsAbout(server, account.companyId, "crm.activity.completed", ids[i]).size());
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ActivitiesStatusTest);
