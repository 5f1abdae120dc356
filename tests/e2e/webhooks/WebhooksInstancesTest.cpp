// Several instances on one PostgreSQL database (issue 7: workers claim rows
// with FOR UPDATE SKIP LOCKED and a lease): two rapportd with the same
// secrets.key, 200 events written through both, and the receiver sees every
// delivery exactly once.
#include <cppunit/extensions/HelperMacros.h>

#include <map>
#include <set>

#include "e2e/webhooks/WebhooksSuite.h"
#include "support/TestEnv.h"

using namespace rapport::e2e;
using namespace rapport::e2e::webhooks;

class WebhooksInstancesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(WebhooksInstancesTest);
  CPPUNIT_TEST(testTwoInstancesSendEachDeliveryOnce);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testTwoInstancesSendEachDeliveryOnce() {
    // A SQLite file serves one rapportd (docs/api-choices.md): several
    // instances are a PostgreSQL set-up, so the SQLite run has nothing to prove.
    if (!rapport::test::onPostgres()) return;
    constexpr int kEvents = 200;
    Receiver receiver;
    const std::string database = rapport::test::freshDatabaseUrl("whk_pair");
    ServerProcess first(deliverySettings({{"database.url", database}}));
    ServerProcess second(deliverySettings({{"database.url", database}}));
    HttpClient a(first.port());
    HttpClient b(second.port());
    const Account account = registerUser(a, "pair");
    const Json webhook =
        createWebhook(a, account.token, receiver.url("/pair"), eventsList({"crm.contact.created"}));
    std::set<std::string> contacts;
    for (int i = 0; i < kEvents; ++i) {
      HttpClient& client = i % 2 == 0 ? a : b;
      contacts.insert(createContact(client, account.token,
                                    Json::object({{"name", "Pair " + std::to_string(i)}}))["id"]
                          .asString());
    }
    CPPUNIT_ASSERT(receiver.waitForRequests(kEvents, 60s, "/pair"));
    // Every delivery final and a success (nothing left to send) ...
    const bool settled = waitUntil(
        [&] {
          const Json body = getBody(a, account.token,
                                    webhookPath(webhook, "/deliveries?status=success&per_page=1"));
          return body["meta"]["total"].asInt() == kEvents;
        },
        30s);
    CPPUNIT_ASSERT(settled);
    const Json all = getBody(a, account.token, webhookPath(webhook, "/deliveries?per_page=1"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(kEvents), all["meta"]["total"].asInt());
    const Json successes =
        getBody(b, account.token, webhookPath(webhook, "/deliveries?status=success&per_page=1"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(kEvents), successes["meta"]["total"].asInt());

    // ... and the receiver saw each one exactly once, one per contact.
    const auto requests = receiver.requests("/pair");
    const DeliveryTally tally = tallyDeliveries(requests);
    CPPUNIT_ASSERT_MESSAGE("sent more than once:" + tally.repeated(), tally.repeated().empty());
    CPPUNIT_ASSERT_EQUAL(std::size_t(kEvents), requests.size());
    CPPUNIT_ASSERT(tally.recordIds == contacts);
    // Both shut down cleanly with their workers.
    CPPUNIT_ASSERT_EQUAL(0, first.stop());
    CPPUNIT_ASSERT_EQUAL(0, second.stop());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(WebhooksInstancesTest);
