// Who did it (decisions §15): each event of GET /v1/events written with a
// key carries actor {type: "api_key", id: <key id>}, one written with a
// user's token {type: "user", id: <user id>}, whoever reads the log (an
// events:read key or the owner); a webhook envelope carries the same actor
// beside data; rapportd's access line of a keyed request names
// principal=<key id> (a user's, principal=<user id>), and the log never
// holds a key, used, revoked or unknown.
#include <cppunit/extensions/HelperMacros.h>

#include <regex>

#include "e2e/api_keys/ApiKeysSuite.h"
#include "e2e/events/EventsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::apikeys;

namespace {

Json actor(const std::string& type, const std::string& id) {
  return Json::object({{"type", type}, {"id", id}});
}

// The event of `type` about record `id` among `events`; fails when there is
// not exactly one.
Json eventAbout(const std::vector<Json>& events, const std::string& type, const std::string& id) {
  std::vector<Json> found;
  for (const Json& event : events) {
    if (event["type"].asString() == type && event["data"]["id"].asString() == id) {
      found.push_back(event);
    }
  }
  if (found.size() != 1) {
    CPPUNIT_FAIL(std::to_string(found.size()) + " events " + type + " about " + id);
  }
  return found.front();
}

// The access lines ("msg=request") of `server` whose path is `path`.
std::vector<std::string> accessLines(const ServerProcess& server, const std::string& path) {
  std::vector<std::string> out;
  for (const auto& line : linesContaining(server.log(), "msg=request")) {
    if (line.find(" path=" + path + " ") != std::string::npos) out.push_back(line);
  }
  return out;
}

// Waits (bounded) for `count` access lines of `path`; returns them.
std::vector<std::string> waitForAccessLines(const ServerProcess& server, const std::string& path,
                                            std::size_t count) {
  std::vector<std::string> lines;
  waitUntil(
      [&] {
        lines = accessLines(server, path);
        return lines.size() >= count;
      },
      std::chrono::seconds(10));
  if (lines.size() < count) CPPUNIT_FAIL("no access line for " + path + ":\n" + server.log());
  return lines;
}

bool namesPrincipal(const std::string& line, const std::string& id) {
  return std::regex_search(line, std::regex("(^| )principal=" + id + "( |$)"));
}

}  // namespace

class KeysActorTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(KeysActorTest);
  CPPUNIT_TEST(testEventsNameTheirActor);
  CPPUNIT_TEST(testWebhookEnvelopeCarriesTheActor);
  CPPUNIT_TEST(testAccessLogNamesTheKeyNeverTheSecret);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEventsNameTheirActor() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "actor-events");
    const Json writer = createKey(client, owner.token, {"contacts:write"}, "Writer");
    const std::string reader = secretOf(createKey(client, owner.token, {"events:read"}, "Reader"));
    const std::string byUser =
        createContact(client, owner.token, Json::object({{"name", "By the owner"}}))["id"]
            .asString();
    const std::string byKey =
        createContact(client, secretOf(writer), Json::object({{"name", "By the key"}}))["id"]
            .asString();
    E2E_ASSERT_DATA(
        200, client.patch("/v1/crm/contacts/" + byKey, Json::object({{"job_title", "Synced"}}),
                          bearer(secretOf(writer))));
    E2E_ASSERT_DATA(200, client.del("/v1/crm/contacts/" + byKey, bearer(secretOf(writer))));
    E2E_ASSERT_DATA(
        200, client.patch("/v1/crm/contacts/" + byUser, Json::object({{"job_title", "Manual"}}),
                          bearer(owner.token)));

    const Json asKey = actor("api_key", writer["id"].asString());
    const Json asUser = actor("user", owner.userId);
    // The same log, read with the events:read key and with the owner's token.
    for (const std::string& token : {reader, owner.token}) {
      const std::vector<Json> events = events::allEvents(client, token);
      for (const char* type :
           {"crm.contact.created", "crm.contact.updated", "crm.contact.deleted"}) {
        const Json event = eventAbout(events, type, byKey);
        WEBHOOKS_ASSERT_SAME_JSON(asKey, event["actor"]);
      }
      for (const char* type : {"crm.contact.created", "crm.contact.updated"}) {
        const Json event = eventAbout(events, type, byUser);
        WEBHOOKS_ASSERT_SAME_JSON(asUser, event["actor"]);
      }
    }
  }

  void testWebhookEnvelopeCarriesTheActor() {
    Receiver receiver;
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "actor-webhook");
    createWebhook(client, owner.token, receiver.url("/actor"), eventsList({"crm.contact.created"}));
    const Json key = createKey(client, owner.token, {"contacts:write"});
    const std::string byKey =
        createContact(client, secretOf(key), Json::object({{"name", "Keyed"}}))["id"].asString();
    const std::string byUser =
        createContact(client, owner.token, Json::object({{"name", "Manual"}}))["id"].asString();
    CPPUNIT_ASSERT(receiver.waitForRequests(2, 20s, "/actor"));
    std::size_t checked = 0;
    for (const ReceivedRequest& request : receiver.requests("/actor")) {
      const Json envelope = Json::parse(request.body);
      const std::string id = envelope["data"]["id"].asString();
      if (id == byKey) {
        WEBHOOKS_ASSERT_SAME_JSON(actor("api_key", key["id"].asString()), envelope["actor"]);
        ++checked;
      } else if (id == byUser) {
        WEBHOOKS_ASSERT_SAME_JSON(actor("user", owner.userId), envelope["actor"]);
        ++checked;
      }
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, checked);
  }

  void testAccessLogNamesTheKeyNeverTheSecret() {
    const ServerProcess& server = keysServer();
    HttpClient client(server.port());
    const Account owner = registerUser(client, "actor-log");
    const Json key = createKey(client, owner.token, {"contacts:read"});
    const Json revoked = createKey(client, owner.token, {"contacts:read"}, "Revoked");
    E2E_ASSERT_DATA(200, client.del(keyPath(revoked), bearer(owner.token)));
    const std::string unknown = "rk_" + randomHex(43);
    // Each request on a path of its own, so that its line is found.
    const auto pathOf = [&](const Json& contact) {
      return "/v1/crm/contacts/" + contact["id"].asString();
    };
    const std::string keyed =
        pathOf(createContact(client, owner.token, Json::object({{"name", "K"}})));
    const std::string manual =
        pathOf(createContact(client, owner.token, Json::object({{"name", "U"}})));
    const std::string refused =
        pathOf(createContact(client, owner.token, Json::object({{"name", "R"}})));
    const std::string guessed =
        pathOf(createContact(client, owner.token, Json::object({{"name", "G"}})));
    E2E_ASSERT_DATA(200, client.get(keyed, bearer(secretOf(key))));
    E2E_ASSERT_DATA(200, client.get(manual, bearer(owner.token)));
    KEYS_ASSERT_401(client.get(refused, bearer(secretOf(revoked))));
    KEYS_ASSERT_401(client.get(guessed, bearer(unknown)));

    const std::string keyLine = waitForAccessLines(server, keyed, 1).back();
    CPPUNIT_ASSERT_MESSAGE(keyLine, namesPrincipal(keyLine, key["id"].asString()));
    const std::string userLine = waitForAccessLines(server, manual, 1).back();
    CPPUNIT_ASSERT_MESSAGE(userLine, namesPrincipal(userLine, owner.userId));
    waitForAccessLines(server, refused, 1);
    waitForAccessLines(server, guessed, 1);

    const std::string log = server.log();
    for (const std::string& secret : {secretOf(key), secretOf(revoked), unknown}) {
      CPPUNIT_ASSERT_MESSAGE("the log holds a key: " + secret,
                             log.find(secret.substr(11)) == std::string::npos);
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(KeysActorTest);
