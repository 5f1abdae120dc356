// After the retention (events.retention_days) removed events: a cursor or a
// time older than what the log keeps is answered 410 by GET /v1/events and
// by webhook replays; reading from the oldest kept event still works.
//
// The events are made old by rewriting their created_at in the database; a
// restart runs the retention job at once (its first run is at start-up).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/events/EventsSuite.h"

namespace rapport::e2e::events {
namespace {

const std::string kCursorGone =
    "The cursor is older than the event log keeps (events.retention_days).";
const std::string kSinceGone =
    "The since is older than the event log keeps (events.retention_days).";

}  // namespace

class EventsRetentionTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(EventsRetentionTest);
  CPPUNIT_TEST(testCursorOlderThanRetention);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCursorOlderThanRetention() {
    ServerProcess first(eventsSettings());
    Receiver receiver;
    Account owner;
    Json webhook;
    std::vector<Json> logged;
    {
      HttpClient client(first.port());
      owner = registerUser(client, "retention");
      webhook = createWebhook(client, owner.token, receiver.url("/retention"),
                              eventsList({"crm.contact.created"}));
      for (const char* name : {"A", "B", "C"}) {
        createContact(client, owner.token, Json::object({{"name", name}}));
      }
      logged = allEvents(client, owner.token, "crm.contact.created");
      CPPUNIT_ASSERT_EQUAL(std::size_t{3}, logged.size());
      CPPUNIT_ASSERT(receiver.waitForRequests(3, 20s));
    }
    const std::int64_t s1 = logged[0]["sequence"].asInt();
    const std::int64_t s2 = logged[1]["sequence"].asInt();
    const std::int64_t s3 = logged[2]["sequence"].asInt();
    // Every event of the company up to the second contact's is made old.
    CPPUNIT_ASSERT(!queryDatabase(first.databaseUrl(),
                                  "UPDATE events SET created_at = 1 WHERE company_id = " +
                                      sqlQuote(owner.companyId) +
                                      " AND sequence <= " + std::to_string(s2) + " RETURNING id")
                        .empty());
    CPPUNIT_ASSERT_EQUAL(0, first.stop());

    ServerProcess again(eventsSettings({{"database.url", first.databaseUrl()}}), {}, {},
                        first.workDir());
    HttpClient client(again.port());
    HttpResult gone;
    const bool purged = waitUntil(
        [&] {
          gone = client.get("/v1/events?after=0", bearer(owner.token));
          return gone.status == 410;
        },
        30s);
    CPPUNIT_ASSERT_MESSAGE(describe(gone), purged);
    CRM_ASSERT_ERROR_MESSAGE(410, kCursorGone, gone);
    CRM_ASSERT_ERROR_MESSAGE(
        410, kCursorGone,
        client.get("/v1/events?after=" + std::to_string(s1), bearer(owner.token)));
    // From the last removed event on, and without a cursor: what is kept.
    for (const std::string& query : {"after=" + std::to_string(s2), std::string("limit=10")}) {
      const Json kept = readEvents(client, owner.token, query);
      CPPUNIT_ASSERT_EQUAL(std::size_t{1}, kept["data"].asArray().size());
      CPPUNIT_ASSERT_EQUAL(s3, kept["data"].asArray()[0]["sequence"].asInt());
      CPPUNIT_ASSERT(!kept["meta"]["has_more"].asBool());
    }

    // Replays: the same horizon.
    CRM_ASSERT_ERROR_MESSAGE(410, kCursorGone,
                             replay(client, owner.token, webhook, Json::object({{"after", 0}})));
    CRM_ASSERT_ERROR_MESSAGE(
        410, kSinceGone,
        replay(client, owner.token, webhook, Json::object({{"since", "2000-01-01T00:00:00Z"}})));
    const Json answer =
        E2E_ASSERT_DATA(202, replay(client, owner.token, webhook, Json::object({{"after", s2}})));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, answer["replayed"].asInt());
    CPPUNIT_ASSERT_EQUAL(s3, answer["from_sequence"].asInt());
    CPPUNIT_ASSERT(receiver.waitForRequests(4, 20s));
    CPPUNIT_ASSERT_EQUAL(logged[2]["data"].dump(),
                         Json::parse(receiver.requests().back().body)["data"].dump());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(EventsRetentionTest);

}  // namespace rapport::e2e::events
