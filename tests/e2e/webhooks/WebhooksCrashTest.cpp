// Nothing lost across a crash (issue 7, decisions §8: "a crash at any moment
// after the commit ends in delivery after restart"): rapportd is killed with
// SIGKILL and restarted on the same database and working directory (same
// secrets.key), and every event is then delivered exactly as it was created.
#include <cppunit/extensions/HelperMacros.h>

#include <map>
#include <memory>
#include <set>

#include "e2e/webhooks/WebhooksSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::webhooks;

namespace {

// A long enough schedule that the receiver's outage (kill, restart) does
// not exhaust the attempts: 20 attempts 1 s apart.
std::string patientSchedule() {
  std::string schedule = "0";
  for (int i = 1; i < 20; ++i) schedule += ",1";
  return schedule;
}

}  // namespace

class WebhooksCrashTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(WebhooksCrashTest);
  CPPUNIT_TEST(testEventsSurviveAKill);
  CPPUNIT_TEST(testAttemptInFlightAtTheKillIsMadeAgain);
  CPPUNIT_TEST_SUITE_END();

 public:
  // Receiver down, events created, SIGKILL, restart, receiver up: every
  // event arrives once per delivery, with the data the API answered, and the
  // records are intact.
  void testEventsSurviveAKill() {
    Receiver receiver;
    const ServerProcess::Settings settings =
        deliverySettings({{"webhooks.retry_schedule", patientSchedule()}});
    auto server = std::make_unique<ServerProcess>(settings);
    const std::string database = server->databaseUrl();
    const std::string workDir = server->workDir();
    std::multiset<std::string> expected;
    std::map<std::string, Json> records;  // path -> the record as last answered
    Account account;
    Json webhook;
    {
      HttpClient client(server->port());
      account = registerUser(client, "crash");
      webhook = createWebhook(
          client, account.token, receiver.url("/after-crash"),
          eventsList({"crm.contact.created", "crm.contact.updated", "crm.company.created"}));
      receiver.stop();
      for (int i = 0; i < 10; ++i) {
        const Json contact = createContact(client, account.token,
                                           Json::object({{"name", "Contact " + std::to_string(i)},
                                                         {"email", uniqueEmail("crash")}}));
        expected.insert(eventKey("crm.contact.created", contact));
        const std::string path = "/v1/crm/contacts/" + contact["id"].asString();
        records[path] = contact;
        if (i % 2 == 0) {
          const Json updated = E2E_ASSERT_DATA(
              200,
              client.patch(path, Json::object({{"job_title", "Survivor " + std::to_string(i)}}),
                           bearer(account.token)));
          expected.insert(eventKey("crm.contact.updated", updated));
          records[path] = updated;
        }
      }
      for (int i = 0; i < 5; ++i) {
        const Json company = createCrmCompany(
            client, account.token, Json::object({{"name", "Company " + std::to_string(i)}}));
        expected.insert(eventKey("crm.company.created", company));
        records["/v1/crm/companies/" + company["id"].asString()] = company;
      }
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t(20), expected.size());
    server->kill();
    server.reset();

    ServerProcess::Settings again = settings;
    again["database.url"] = database;
    ServerProcess restarted(again, {}, {}, workDir);
    receiver.start();
    HttpClient client(restarted.port());
    const Json data = waitForDeliveries(
        client, account.token, webhook,
        [](const Json& d) {
          return d.size() == 20 && std::all_of(d.asArray().begin(), d.asArray().end(), isFinal);
        },
        60s);
    std::set<std::string> ids;
    for (const Json& delivery : data.asArray()) {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(delivery.dump(), std::string("success"),
                                   delivery["status"].asString());
      ids.insert(delivery["id"].asString());
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t(20), ids.size());

    // Every delivery reached the receiver, once (no attempt could succeed
    // before the kill: the receiver was down), with the data as created.
    const auto requests = receiver.requests("/after-crash");
    CPPUNIT_ASSERT_EQUAL(std::size_t(20), requests.size());
    std::multiset<std::string> received;
    std::set<std::string> receivedIds;
    for (const auto& request : requests) {
      CPPUNIT_ASSERT(signedWith(request, webhook["secret"].asString()));
      const Json envelope = Json::parse(request.body);
      CPPUNIT_ASSERT_EQUAL(envelope["event"].asString(), request.header("X-Service-Event"));
      received.insert(eventKey(envelope["event"].asString(), envelope["data"]));
      receivedIds.insert(request.header("X-Service-Delivery"));
    }
    CPPUNIT_ASSERT(receivedIds == ids);
    if (received != expected) {
      std::string missing;
      for (const auto& key : expected) {
        if (!received.count(key)) missing += "\n  " + key;
      }
      CPPUNIT_FAIL("delivered events differ from the created ones; missing:" + missing);
    }
    // The records are intact.
    for (const auto& [path, record] : records) {
      WEBHOOKS_ASSERT_SAME_JSON(record,
                                E2E_ASSERT_DATA(200, client.get(path, bearer(account.token))));
    }
  }

  // An attempt held by the receiver when rapportd is killed: its lease
  // (2 x timeout + 5 s) runs out and the restarted server makes it again.
  void testAttemptInFlightAtTheKillIsMadeAgain() {
    Receiver receiver;
    receiver.script("/held", {Answer::hang(), Answer::status(200, "ok")});
    const ServerProcess::Settings settings = deliverySettings({{"webhooks.timeout", "1"}});
    auto server = std::make_unique<ServerProcess>(settings);
    const std::string database = server->databaseUrl();
    const std::string workDir = server->workDir();
    Account account;
    Json webhook;
    {
      HttpClient client(server->port());
      account = registerUser(client, "crash-lease");
      webhook = createWebhook(client, account.token, receiver.url("/held"),
                              eventsList({"crm.contact.created"}));
      createContact(client, account.token, Json::object({{"name", "In flight"}}));
    }
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 15s, "/held"));
    server->kill();
    server.reset();
    receiver.releaseHangs();

    ServerProcess::Settings again = settings;
    again["database.url"] = database;
    ServerProcess restarted(again, {}, {}, workDir);
    // The lease is 7 s from the claim.
    CPPUNIT_ASSERT(receiver.waitForRequests(2, 30s, "/held"));
    const auto requests = receiver.requests("/held");
    CPPUNIT_ASSERT_EQUAL(requests[0].header("X-Service-Delivery"),
                         requests[1].header("X-Service-Delivery"));
    CPPUNIT_ASSERT_EQUAL(requests[0].body, requests[1].body);
    CPPUNIT_ASSERT(signedWith(requests[1], webhook["secret"].asString()));
    // Not before the lease ran out (7 s after a claim made just before the
    // first request).
    const auto gap = requests[1].receivedAt - requests[0].receivedAt;
    CPPUNIT_ASSERT_MESSAGE(
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(gap).count()) + " ms",
        gap >= 5s);
    HttpClient client(restarted.port());
    const Json done = waitForDelivery(client, account.token, webhook,
                                      requests[0].header("X-Service-Delivery"), isFinal, 15s);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(done.dump(), std::string("success"), done["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(200), done["response_code"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), receiver.count("/held"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(WebhooksCrashTest);
