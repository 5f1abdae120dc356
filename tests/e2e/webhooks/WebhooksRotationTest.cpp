// Dual signatures after a secret rotation, and the payload cap
// (docs/modules/webhooks.md "Rotating the secret" and "Payload size"),
// checked as a receiver would, with `openssl dgst`:
// - during webhooks.rotation_overlap every attempt (an event's, a ping's)
//   carries "t=..,v1=<new>,v1=<old>", the new one first; a second rotation
//   drops the first secret; a PATCH of the secret ends the overlap;
// - after the overlap (1 s on a server of its own) only the new secret signs;
// - an event whose envelope is over webhooks.max_payload_bytes (2048 on that
//   server) is delivered with data {id} and "data_omitted": true, signed
//   like any other; a smaller one whole.
#include <cppunit/extensions/HelperMacros.h>

#include <set>

#include "e2e/webhooks/WebhooksSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::webhooks;

namespace {

const Json kContactEvents = eventsList({"crm.contact.created"});
constexpr std::int64_t kShortOverlap = 1;  // seconds
constexpr std::size_t kSmallCap = 2048;    // bytes

// A delivery server whose rotations overlap 1 s and whose bodies stop at
// 2 KiB.
ServerProcess& smallServer() {
  static ServerProcess server(
      deliverySettings({{"webhooks.rotation_overlap", std::to_string(kShortOverlap)},
                        {"webhooks.max_payload_bytes", std::to_string(kSmallCap)}}));
  return server;
}

std::string rotate(HttpClient& client, const std::string& token, const Json& webhook) {
  return E2E_ASSERT_DATA(200, client.post(webhookPath(webhook, "/rotate-secret"), Json::object(),
                                          bearer(token)))["secret"]
      .asString();
}

// The v1 values of `request`, in order.
std::vector<std::string> signaturesOf(const ReceivedRequest& request) {
  const SignatureParts parts = parseSignature(request.header("X-Service-Signature"));
  CPPUNIT_ASSERT_MESSAGE(request.header("X-Service-Signature"), !parts.t.empty());
  return parts.v1s;
}

// What `secret` signs for `request`: its HMAC over "<t>.<raw body>" by openssl.
std::string expectedSignature(const ReceivedRequest& request, const std::string& secret) {
  const SignatureParts parts = parseSignature(request.header("X-Service-Signature"));
  return opensslHmacSha256(secret, parts.t + "." + request.body);
}

// Exactly `secrets`, in this order, sign `request`.
void assertSignedBy(const ReceivedRequest& request, const std::vector<std::string>& secrets) {
  std::vector<std::string> expected;
  for (const std::string& secret : secrets) expected.push_back(expectedSignature(request, secret));
  CPPUNIT_ASSERT_MESSAGE(request.header("X-Service-Signature"), signaturesOf(request) == expected);
}

}  // namespace

class WebhooksRotationTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(WebhooksRotationTest);
  CPPUNIT_TEST(testBothSecretsSignDuringTheOverlap);
  CPPUNIT_TEST(testOnlyTheNewSecretSignsAfterTheOverlap);
  CPPUNIT_TEST(testLargeEventIsSentWithItsIdOnly);
  CPPUNIT_TEST_SUITE_END();

 public:
  // The shared delivery server keeps the default overlap (24 h).
  void testBothSecretsSignDuringTheOverlap() {
    Receiver receiver;
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "rotate-dual");
    const Json webhook = createWebhook(client, account.token, receiver.url("/r"), kContactEvents);
    const std::string first = webhook["secret"].asString();

    const std::string second = rotate(client, account.token, webhook);
    CPPUNIT_ASSERT(second != first);
    createContact(client, account.token, Json::object({{"name", "After one rotation"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 15s));
    // Verifiable with either secret; the new one first.
    const ReceivedRequest event = receiver.requests().at(0);
    assertSignedBy(event, {second, first});
    CPPUNIT_ASSERT(signedWith(event, first) && signedWith(event, second));
    // A ping too (the path of a manual retry: one attempt, signed alike).
    client.post(webhookPath(webhook, "/ping"), Json::object(), bearer(account.token));
    CPPUNIT_ASSERT(receiver.waitForRequests(2, 15s));
    assertSignedBy(receiver.requests().at(1), {second, first});

    // A second rotation: the first secret stops, the second overlaps.
    const std::string third = rotate(client, account.token, webhook);
    createContact(client, account.token, Json::object({{"name", "After two rotations"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(3, 15s));
    assertSignedBy(receiver.requests().at(2), {third, second});
    CPPUNIT_ASSERT(!signedWith(receiver.requests().at(2), first));

    // A PATCH of the secret replaces it at once: the overlap ends.
    const std::string patched = "a secret set by PATCH after rotations";
    E2E_ASSERT_DATA(200, client.patch(webhookPath(webhook), Json::object({{"secret", patched}}),
                                      bearer(account.token)));
    createContact(client, account.token, Json::object({{"name", "After the PATCH"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(4, 15s));
    assertSignedBy(receiver.requests().at(3), {patched});

    // The server never writes a secret to its log.
    const std::string log = deliveryServer().log();
    for (const std::string& secret : {first, second, third, patched}) {
      CPPUNIT_ASSERT(log.find(secret) == std::string::npos);
    }
  }

  void testOnlyTheNewSecretSignsAfterTheOverlap() {
    Receiver receiver;
    HttpClient client(smallServer().port());
    const Account account = registerUser(client, "rotate-overlap");
    const Json webhook = createWebhook(client, account.token, receiver.url("/o"), kContactEvents);
    const std::string old = webhook["secret"].asString();
    const std::string fresh = rotate(client, account.token, webhook);
    // The overlap ends at most kShortOverlap seconds after the answer: wait
    // for the clock to pass that instant (not for luck).
    const std::int64_t over = unixNow() + kShortOverlap + 1;
    CPPUNIT_ASSERT(waitUntil([&] { return unixNow() > over; }, 10s));

    createContact(client, account.token, Json::object({{"name", "After the overlap"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 15s));
    const ReceivedRequest after = receiver.requests().at(0);
    assertSignedBy(after, {fresh});
    CPPUNIT_ASSERT(!signedWith(after, old));
  }

  void testLargeEventIsSentWithItsIdOnly() {
    Receiver receiver;
    HttpClient client(smallServer().port());
    const Account account = registerUser(client, "payload-cap");
    const Json webhook = createWebhook(client, account.token, receiver.url("/p"), kContactEvents);
    const std::string secret = webhook["secret"].asString();

    const Json small = createContact(client, account.token, Json::object({{"name", "Small"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 15s));
    const ReceivedRequest whole = receiver.requests().at(0);
    CPPUNIT_ASSERT(whole.body.size() <= kSmallCap);
    const Json wholeEnvelope = Json::parse(whole.body);
    CPPUNIT_ASSERT(wholeEnvelope.find("data_omitted") == nullptr);
    CPPUNIT_ASSERT_EQUAL(std::string("Small"), wholeEnvelope["data"]["name"].asString());

    const Json large =
        createContact(client, account.token,
                      Json::object({{"name", "Large"}, {"notes", std::string(3000, 'n')}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(2, 15s));
    const ReceivedRequest thin = receiver.requests().at(1);
    CPPUNIT_ASSERT_MESSAGE(std::to_string(thin.body.size()), thin.body.size() <= kSmallCap);
    CPPUNIT_ASSERT(signedWith(thin, secret));
    const Json envelope = Json::parse(thin.body);
    std::set<std::string> members;
    for (const auto& member : envelope.asObject()) members.insert(member.first);
    CPPUNIT_ASSERT_MESSAGE(
        thin.body, members == (std::set<std::string>{"id", "event", "created_at", "actor", "data",
                                                     "data_omitted"}));
    CPPUNIT_ASSERT(envelope["data_omitted"] == Json(true));
    WEBHOOKS_ASSERT_SAME_JSON(Json::object({{"id", large["id"]}}), envelope["data"]);
    CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.created"), envelope["event"].asString());
    CPPUNIT_ASSERT(envelope["id"].asString().rfind("evt_", 0) == 0);
    // The receiver fetches the record: all of it is there.
    const Json fetched = E2E_ASSERT_DATA(
        200, client.get("/v1/crm/contacts/" + large["id"].asString(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(3000), fetched["notes"].asString().size());
    // The delivery keeps what was sent.
    const Json delivered = waitForDeliveries(
        client, account.token, webhook,
        [](const Json& data) {
          return data.size() == 2 && isFinal(data.asArray()[0]) && isFinal(data.asArray()[1]);
        },
        15s);
    const std::string thinId = thin.header("X-Service-Delivery");
    WEBHOOKS_ASSERT_SAME_JSON(envelope,
                              deliveryOf(client, account.token, webhook, thinId)["payload"]);
    CPPUNIT_ASSERT(small["id"].isString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), delivered.size());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(WebhooksRotationTest);
