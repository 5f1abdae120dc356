// POST /v1/webhooks/{id}/replay: the logged events of the webhook's types
// after a cursor or since a time, sent again as NEW deliveries (listed with
// the webhook's deliveries), in the log's order, each once; the refusals
// (422, 404, 409, 403) and the 10 000 cap.
#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <set>

#include "e2e/events/EventsSuite.h"
#include "support/TestEnv.h"

namespace rapport::e2e::events {
namespace {

constexpr auto kDeliveryWait = 20s;

struct Fixture {
  Account owner;
  Json webhook;
};

Fixture withWebhook(HttpClient& client, Receiver& receiver, const std::string& label,
                    const Json& events) {
  Fixture f;
  f.owner = registerUser(client, label);
  f.webhook = createWebhook(client, f.owner.token, receiver.url("/" + label), events);
  return f;
}

// The envelopes the receiver got, in arrival order.
std::vector<Json> envelopes(const Receiver& receiver) {
  std::vector<Json> out;
  for (const ReceivedRequest& request : receiver.requests())
    out.push_back(Json::parse(request.body));
  return out;
}

// Waits until every delivery of the webhook succeeded and there are `n`.
Json waitDelivered(HttpClient& client, const Fixture& f, std::size_t n) {
  return waitForDeliveries(
      client, f.owner.token, f.webhook,
      [n](const Json& data) {
        if (data.asArray().size() != n) return false;
        for (const Json& d : data.asArray()) {
          if (d["status"].asString() != "success") return false;
        }
        return true;
      },
      kDeliveryWait);
}

std::string contactNamed(HttpClient& client, const Account& owner, const std::string& name) {
  return createContact(client, owner.token, Json::object({{"name", name}}))["id"].asString();
}

}  // namespace

class EventsReplayTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(EventsReplayTest);
  CPPUNIT_TEST(testReplayAfterCursor);
  CPPUNIT_TEST(testOtherTypesSkipped);
  CPPUNIT_TEST(testReplaySince);
  CPPUNIT_TEST(testNothingToReplay);
  CPPUNIT_TEST(testRefusals);
  CPPUNIT_TEST(testCap);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testReplayAfterCursor() {
    HttpClient client(eventsServer().port());
    Receiver receiver;
    const Fixture f = withWebhook(client, receiver, "replay-after",
                                  eventsList({"crm.contact.created", "crm.company.created"}));
    const std::vector<std::string> contacts = {contactNamed(client, f.owner, "A"),
                                               contactNamed(client, f.owner, "B"),
                                               contactNamed(client, f.owner, "C")};
    createCrmCompany(client, f.owner.token, Json::object({{"name", "Co"}}));
    waitDelivered(client, f, 4);
    std::set<std::string> freshEnvelopes;
    for (const Json& e : envelopes(receiver)) freshEnvelopes.insert(e["id"].asString());

    const std::vector<Json> logged = allEvents(client, f.owner.token, "crm.contact.created");
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, logged.size());
    const Json answer = E2E_ASSERT_DATA(
        202, replay(client, f.owner.token, f.webhook,
                    Json::object({{"after", logged[0]["sequence"]},
                                  {"types", eventsList({"crm.contact.created"})}})));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, answer["replayed"].asInt());
    CPPUNIT_ASSERT_EQUAL(logged[1]["sequence"].asInt(), answer["from_sequence"].asInt());
    CPPUNIT_ASSERT_EQUAL(logged[2]["sequence"].asInt(), answer["to_sequence"].asInt());

    // Two new deliveries, listed with the others, each sent once.
    const Json deliveries = waitDelivered(client, f, 6);
    std::size_t contactDeliveries = 0;
    for (const Json& d : deliveries.asArray()) {
      contactDeliveries += d["event"].asString() == "crm.contact.created" ? 1 : 0;
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t{5}, contactDeliveries);
    const std::vector<Json> received = envelopes(receiver);
    CPPUNIT_ASSERT_EQUAL(std::size_t{6}, received.size());
    // In the log's order, with the events' data, under new envelope ids.
    for (std::size_t i = 0; i < 2; ++i) {
      const Json& envelope = received[4 + i];
      CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.created"), envelope["event"].asString());
      CPPUNIT_ASSERT_EQUAL(contacts[1 + i], envelope["data"]["id"].asString());
      CPPUNIT_ASSERT_EQUAL(logged[1 + i]["data"].dump(), envelope["data"].dump());
      CPPUNIT_ASSERT_EQUAL(logged[1 + i]["created_at"].asString(),
                           envelope["created_at"].asString());
      CPPUNIT_ASSERT_EQUAL(std::size_t{0}, freshEnvelopes.count(envelope["id"].asString()));
    }
  }

  // Without `types`, the webhook's own types: a company event is skipped
  // by a webhook of contacts.
  void testOtherTypesSkipped() {
    HttpClient client(eventsServer().port());
    Receiver receiver;
    const Fixture f =
        withWebhook(client, receiver, "replay-skip", eventsList({"crm.contact.created"}));
    const std::string first = contactNamed(client, f.owner, "A");
    createCrmCompany(client, f.owner.token, Json::object({{"name", "Co"}}));
    const std::string second = contactNamed(client, f.owner, "B");
    waitDelivered(client, f, 2);
    const Json answer = E2E_ASSERT_DATA(
        202, replay(client, f.owner.token, f.webhook, Json::object({{"after", 0}})));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, answer["replayed"].asInt());
    waitDelivered(client, f, 4);
    const std::vector<Json> received = envelopes(receiver);
    CPPUNIT_ASSERT_EQUAL(std::size_t{4}, received.size());
    CPPUNIT_ASSERT_EQUAL(first, received[2]["data"]["id"].asString());
    CPPUNIT_ASSERT_EQUAL(second, received[3]["data"]["id"].asString());
  }

  void testReplaySince() {
    HttpClient client(eventsServer().port());
    Receiver receiver;
    const Fixture f =
        withWebhook(client, receiver, "replay-since", eventsList({"crm.contact.created"}));
    for (const char* name : {"A", "B", "C"}) contactNamed(client, f.owner, name);
    waitDelivered(client, f, 3);
    const std::vector<Json> logged = allEvents(client, f.owner.token, "crm.contact.created");
    // Created at or after the second event's time (microseconds).
    const Json answer =
        E2E_ASSERT_DATA(202, replay(client, f.owner.token, f.webhook,
                                    Json::object({{"since", logged[1]["created_at"]}})));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, answer["replayed"].asInt());
    CPPUNIT_ASSERT_EQUAL(logged[1]["sequence"].asInt(), answer["from_sequence"].asInt());
    CPPUNIT_ASSERT_EQUAL(logged[2]["sequence"].asInt(), answer["to_sequence"].asInt());
    waitDelivered(client, f, 5);
    const std::vector<Json> received = envelopes(receiver);
    CPPUNIT_ASSERT_EQUAL(std::size_t{5}, received.size());
    CPPUNIT_ASSERT_EQUAL(logged[1]["data"].dump(), received[3]["data"].dump());
    CPPUNIT_ASSERT_EQUAL(logged[2]["data"].dump(), received[4]["data"].dump());
  }

  void testNothingToReplay() {
    HttpClient client(eventsServer().port());
    Receiver receiver;
    const Fixture f =
        withWebhook(client, receiver, "replay-none", eventsList({"crm.contact.created"}));
    contactNamed(client, f.owner, "A");
    waitDelivered(client, f, 1);
    const std::int64_t last = allEvents(client, f.owner.token).back()["sequence"].asInt();
    const Json answer = E2E_ASSERT_DATA(
        202, replay(client, f.owner.token, f.webhook, Json::object({{"after", last}})));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, answer["replayed"].asInt());
    CPPUNIT_ASSERT(answer["from_sequence"].isNull());
    CPPUNIT_ASSERT(answer["to_sequence"].isNull());
    CPPUNIT_ASSERT_EQUAL(std::size_t{1},
                         deliveriesOf(client, f.owner.token, f.webhook)["data"].asArray().size());
  }

  void testRefusals() {
    HttpClient client(eventsServer().port());
    Receiver receiver;
    const Fixture f =
        withWebhook(client, receiver, "replay-refusals", eventsList({"crm.contact.created"}));
    auto post = [&](const Json& body) { return replay(client, f.owner.token, f.webhook, body); };
    CRM_ASSERT_FIELD_ERROR(post(Json::object()), "since", "Either since or after is required.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"after", 0}, {"since", "2026-01-01T00:00:00Z"}})),
                           "after", "Give either since or after, not both.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"after", -1}})), "after", "");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"after", "1"}})), "after", "");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"since", "yesterday"}})), "since", "");
    CRM_ASSERT_FIELD_ERROR(
        post(Json::object({{"after", 0}, {"types", eventsList({"crm.company.created"})}})), "types",
        "The type 'crm.company.created' is not one of the webhook's events.");
    for (const Json& types :
         {Json("crm.contact.created"), Json::array(), Json(Json::Array{Json(1)})}) {
      CRM_ASSERT_FIELD_ERROR(post(Json::object({{"after", 0}, {"types", types}})), "types",
                             "The types must be a non-empty array of event types.");
    }
    CRM_ASSERT_ERROR_MESSAGE(404, "Webhook not found.",
                             client.post("/v1/webhooks/whk_nope/replay",
                                         Json::object({{"after", 0}}), bearer(f.owner.token)));
    // Another company's webhook is not found either.
    const Account stranger = registerUser(client, "replay-stranger");
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Webhook not found.",
        replay(client, stranger.token, f.webhook, Json::object({{"after", 0}})));
    const Account member = joinAs(client, f.owner, "member", "replay-member");
    E2E_ASSERT_ERROR(403, replay(client, member.token, f.webhook, Json::object({{"after", 0}})));
    E2E_ASSERT_ERROR(401,
                     client.post(webhookPath(f.webhook, "/replay"), Json::object({{"after", 0}})));
    // A disabled webhook replays nothing.
    E2E_ASSERT_DATA(200, client.patch(webhookPath(f.webhook), Json::object({{"is_active", false}}),
                                      bearer(f.owner.token)));
    CRM_ASSERT_ERROR_MESSAGE(409, "The webhook is disabled.", post(Json::object({{"after", 0}})));
  }

  // More than 10 000 matching events: 422, and nothing written. The events
  // are written straight into the log (numbered at commit on PostgreSQL by
  // migration 0003's trigger).
  void testCap() {
    ServerProcess& server = eventsServer();
    HttpClient client(server.port());
    Receiver receiver;
    const Fixture f =
        withWebhook(client, receiver, "replay-cap", eventsList({"crm.contact.created"}));
    const std::int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    CPPUNIT_ASSERT_EQUAL(
        std::size_t{10001},
        insertContactEvents(server.databaseUrl(), f.owner.companyId, 10001, now, 1000000));
    CPPUNIT_ASSERT_EQUAL(std::size_t{10001},
                         allEvents(client, f.owner.token, "crm.contact.created").size());
    CRM_ASSERT_FIELD_ERROR(
        replay(client, f.owner.token, f.webhook, Json::object({{"after", 0}})), "after",
        "More than 10000 events match: narrow the replay (a later after, or types).");
    CPPUNIT_ASSERT_EQUAL(std::size_t{0},
                         deliveriesOf(client, f.owner.token, f.webhook)["data"].asArray().size());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(EventsReplayTest);

}  // namespace rapport::e2e::events
