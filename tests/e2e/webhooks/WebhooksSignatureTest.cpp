// What a receiver gets (API Events: Envelope, Request headers, Signature;
// decisions §8): the exact headers, the envelope, and a signature checked
// with `openssl dgst -sha256 -hmac` over "t.<raw body>" (never with the
// server's code): with a generated secret, a given one, after PATCH and after
// rotate-secret (the first of two signatures); the envelope id stays the
// same across attempts while t changes.
#include <cppunit/extensions/HelperMacros.h>

#include <set>

#include "e2e/webhooks/WebhooksSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::webhooks;

namespace {

const Json kContactCreated = eventsList({"crm.contact.created"});

// The envelope: exactly id (evt_), event, created_at (ISO-8601 UTC), actor
// (decisions §15, §16: who caused it), data.
Json assertEnvelope(const ReceivedRequest& request, const std::string& event) {
  const Json envelope = Json::parse(request.body);
  CPPUNIT_ASSERT_MESSAGE(request.body, envelope.isObject());
  std::set<std::string> members;
  for (const auto& member : envelope.asObject()) members.insert(member.first);
  CPPUNIT_ASSERT_MESSAGE(
      request.body,
      members == (std::set<std::string>{"id", "event", "created_at", "actor", "data"}));
  CPPUNIT_ASSERT_MESSAGE(request.body, envelope["actor"].isObject());
  const std::string actor = envelope["actor"]["type"].asString();
  CPPUNIT_ASSERT_MESSAGE(request.body, actor == "user" || actor == "api_key" || actor == "system");
  CPPUNIT_ASSERT_MESSAGE(request.body, envelope["id"].asString().rfind("evt_", 0) == 0 &&
                                           envelope["id"].asString().size() > 14);
  CPPUNIT_ASSERT_EQUAL(event, envelope["event"].asString());
  E2E_ASSERT_ISO_UTC(envelope["created_at"]);
  CPPUNIT_ASSERT_MESSAGE(request.body, envelope["data"].isObject());
  return envelope;
}

}  // namespace

class WebhooksSignatureTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(WebhooksSignatureTest);
  CPPUNIT_TEST(testHeadersEnvelopeAndSignature);
  CPPUNIT_TEST(testEnvelopeIdStaysWhileTimestampChanges);
  CPPUNIT_TEST(testRotatedSecretSignsFromNowOn);
  CPPUNIT_TEST(testGivenSecretIsTheKey);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testHeadersEnvelopeAndSignature() {
    Receiver receiver;
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "sig-headers");
    const Json webhook =
        createWebhook(client, account.token, receiver.url("/in?tenant=1"), kContactCreated);
    const std::string secret = webhook["secret"].asString();

    const std::int64_t before = unixNow();
    const Json contact = createContact(
        client, account.token,
        Json::object({{"name", "Zoë \"Quotes\" Ünicode"}, {"tags", eventsList({"a"})}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 15s));
    const std::int64_t after = unixNow();
    const ReceivedRequest request = receiver.requests().at(0);

    CPPUNIT_ASSERT_EQUAL(std::string("POST"), request.method);
    CPPUNIT_ASSERT_EQUAL(std::string("/in?tenant=1"), request.uri);
    for (const char* name : {"Content-Type", "User-Agent", "X-Service-Event", "X-Service-Delivery",
                             "X-Service-Signature", "X-Service-Timestamp"}) {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(name, std::size_t(1), request.headerCount(name));
    }
    CPPUNIT_ASSERT_EQUAL(std::string("application/json"), request.header("Content-Type"));
    CPPUNIT_ASSERT_EQUAL(std::string("Rapport-Webhooks/1.0"), request.header("User-Agent"));
    CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.created"), request.header("X-Service-Event"));
    CPPUNIT_ASSERT_EQUAL(std::to_string(request.body.size()), request.header("Content-Length"));
    CPPUNIT_ASSERT_EQUAL("localhost:" + std::to_string(receiver.port()), request.header("Host"));

    // t=<unix>,v1=<hex>, t equal to X-Service-Timestamp and to the time of sending.
    const SignatureParts signature = parseSignature(request.header("X-Service-Signature"));
    CPPUNIT_ASSERT_MESSAGE(request.header("X-Service-Signature"), !signature.t.empty());
    CPPUNIT_ASSERT_EQUAL(signature.t, request.header("X-Service-Timestamp"));
    const std::int64_t t = std::stoll(signature.t);
    CPPUNIT_ASSERT(t >= before - 1 && t <= after + 1);
    CPPUNIT_ASSERT_EQUAL(opensslHmacSha256(secret, signature.t + "." + request.body), signature.v1);
    CPPUNIT_ASSERT(signedWith(request, secret));
    // The key is the whole secret, prefix included.
    CPPUNIT_ASSERT(!signedWith(request, secret.substr(6)));

    // The envelope: data is the contact as GET returns it.
    const Json envelope = assertEnvelope(request, "crm.contact.created");
    WEBHOOKS_ASSERT_SAME_JSON(readRecord(client, account.token, contact), envelope["data"]);
    CPPUNIT_ASSERT(E2E_ASSERT_ISO_UTC(envelope["created_at"]) >= before - 1);

    // The delivery: X-Service-Delivery is its id; recorded as a success.
    const Json delivered = waitForDeliveries(
        client, account.token, webhook,
        [](const Json& data) { return data.size() == 1 && isFinal(data.asArray()[0]); }, 10s);
    const Json& item = delivered.asArray()[0];
    CPPUNIT_ASSERT_MESSAGE(item.dump(), item["id"].asString().rfind("whd_", 0) == 0);
    CPPUNIT_ASSERT_EQUAL(item["id"].asString(), request.header("X-Service-Delivery"));
    CPPUNIT_ASSERT_EQUAL(std::string("success"), item["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.created"), item["event"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(200), item["response_code"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), item["attempts"].asInt());
    E2E_ASSERT_ISO_UTC(item["created_at"]);
    E2E_ASSERT_ISO_UTC(item["last_attempt_at"]);
    const Json detail = deliveryOf(client, account.token, webhook, item["id"].asString());
    WEBHOOKS_ASSERT_SAME_JSON(envelope, detail["payload"]);
    CPPUNIT_ASSERT_EQUAL(std::string("ok"), detail["response_body"].asString());
    // One event, one delivery.
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), receiver.count());
  }

  void testEnvelopeIdStaysWhileTimestampChanges() {
    Receiver receiver;
    receiver.script("/flaky", {Answer::status(503, "busy"), Answer::status(200, "ok")});
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "sig-attempts");
    const Json webhook =
        createWebhook(client, account.token, receiver.url("/flaky"), kContactCreated);
    createContact(client, account.token, Json::object({{"name", "Twice"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(2, 15s));
    const auto requests = receiver.requests();
    const ReceivedRequest& first = requests.at(0);
    const ReceivedRequest& second = requests.at(1);
    // The same delivery and envelope, byte for byte.
    CPPUNIT_ASSERT_EQUAL(first.header("X-Service-Delivery"), second.header("X-Service-Delivery"));
    CPPUNIT_ASSERT_EQUAL(first.body, second.body);
    CPPUNIT_ASSERT_EQUAL(Json::parse(first.body)["id"].asString(),
                         Json::parse(second.body)["id"].asString());
    // Signed afresh: a later t (the retry comes at least 1 s later), both valid.
    const std::int64_t t1 = std::stoll(parseSignature(first.header("X-Service-Signature")).t);
    const std::int64_t t2 = std::stoll(parseSignature(second.header("X-Service-Signature")).t);
    CPPUNIT_ASSERT_MESSAGE(std::to_string(t1) + " " + std::to_string(t2), t2 > t1);
    CPPUNIT_ASSERT_EQUAL(std::to_string(t2), second.header("X-Service-Timestamp"));
    CPPUNIT_ASSERT(signedWith(first, webhook["secret"].asString()));
    CPPUNIT_ASSERT(signedWith(second, webhook["secret"].asString()));
    CPPUNIT_ASSERT(first.header("X-Service-Signature") != second.header("X-Service-Signature"));
  }

  void testRotatedSecretSignsFromNowOn() {
    Receiver receiver;
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "sig-rotate");
    const Json webhook = createWebhook(client, account.token, receiver.url("/r"), kContactCreated);
    const std::string old = webhook["secret"].asString();
    createContact(client, account.token, Json::object({{"name", "Before"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 15s));
    CPPUNIT_ASSERT(signedWith(receiver.requests().at(0), old));

    const std::string fresh =
        E2E_ASSERT_DATA(200, client.post(webhookPath(webhook, "/rotate-secret"), Json::object(),
                                         bearer(account.token)))["secret"]
            .asString();
    createContact(client, account.token, Json::object({{"name", "After"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(2, 15s));
    const ReceivedRequest after = receiver.requests().at(1);
    CPPUNIT_ASSERT_EQUAL(std::string("After"), Json::parse(after.body)["data"]["name"].asString());
    // The new secret signs first; the old one still signs beside it for
    // webhooks.rotation_overlap (WebhooksRotationTest).
    const SignatureParts parts = parseSignature(after.header("X-Service-Signature"));
    CPPUNIT_ASSERT_EQUAL(opensslHmacSha256(fresh, parts.t + "." + after.body), parts.v1);
    CPPUNIT_ASSERT(signedWith(after, old));
    // A ping too.
    E2E_ASSERT_DATA(
        200, client.post(webhookPath(webhook, "/ping"), Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT(receiver.waitForRequests(3, 15s));
    const ReceivedRequest ping = receiver.requests().at(2);
    const SignatureParts pinged = parseSignature(ping.header("X-Service-Signature"));
    CPPUNIT_ASSERT_EQUAL(opensslHmacSha256(fresh, pinged.t + "." + ping.body), pinged.v1);
    // The server never writes a secret to its log.
    const std::string log = deliveryServer().log();
    CPPUNIT_ASSERT(log.find(old) == std::string::npos);
    CPPUNIT_ASSERT(log.find(fresh) == std::string::npos);
  }

  void testGivenSecretIsTheKey() {
    Receiver receiver;
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "sig-given");
    const std::string given = "whsec_not-generated: any 16+ chars ok";
    const Json webhook = createWebhook(client, account.token, receiver.url("/g"), kContactCreated,
                                       Json::object({{"secret", given}}));
    createContact(client, account.token, Json::object({{"name", "Given"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 15s));
    CPPUNIT_ASSERT(signedWith(receiver.requests().at(0), given));

    const std::string patched = "a secret set by PATCH, 40 characters..";
    E2E_ASSERT_DATA(200, client.patch(webhookPath(webhook), Json::object({{"secret", patched}}),
                                      bearer(account.token)));
    createContact(client, account.token, Json::object({{"name", "Patched"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(2, 15s));
    const ReceivedRequest second = receiver.requests().at(1);
    CPPUNIT_ASSERT_EQUAL(std::string("Patched"),
                         Json::parse(second.body)["data"]["name"].asString());
    CPPUNIT_ASSERT(signedWith(second, patched));
    CPPUNIT_ASSERT(!signedWith(second, given));
  }

 private:
  static Json readRecord(HttpClient& client, const std::string& token, const Json& contact) {
    return E2E_ASSERT_DATA(
        200, client.get("/v1/crm/contacts/" + contact["id"].asString(), bearer(token)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(WebhooksSignatureTest);
