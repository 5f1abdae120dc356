// The request-forgery guard (issue 7, decisions §8): on a server without
// webhooks.allow_private_targets, a URL whose host is (or resolves to) a
// loopback, private, link-local, carrier-grade NAT, unspecified, multicast or
// IPv6-equivalent address is refused at create and at update (422), in every
// spelling the resolver accepts (decimal, octal, hex, IPv4-mapped); and at
// delivery time: a webhook registered while allowed, on a server restarted
// without the allowance, never reaches its receiver.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/webhooks/WebhooksSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::webhooks;

namespace {

const std::string kRefused = "url must not point at a private, loopback or reserved address";
const Json kContactCreated = eventsList({"crm.contact.created"});

// Hosts a webhook may not reach, as written in a URL.
const std::vector<std::string> kForbiddenHosts = {
    "127.0.0.1",
    "localhost",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "[::1]",
    "[fc00::1]",
    "[fe80::1]",
    "[::ffff:127.0.0.1]",
    "2130706433",
    "0177.0.0.1",
    "0x7f.0.0.1",
    "127.1",
    "255.255.255.255",
    "[::ffff:10.0.0.1]",
};

// A public address literal: accepted without any DNS lookup.
const std::string kPublicUrl = "https://8.8.8.8/hooks";

// 422 with errors.url exactly [kRefused].
void assertRefused(const std::string& url, const HttpResult& result) {
  CPPUNIT_ASSERT_EQUAL_MESSAGE(url + "\n" + describe(result), 422, result.status);
  const Json body = E2E_ASSERT_ERROR(422, result);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(url, Json(Json::Array{Json(kRefused)}).dump(),
                               body["errors"]["url"].dump());
}

}  // namespace

class WebhooksGuardTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(WebhooksGuardTest);
  CPPUNIT_TEST(testRefusedAtCreate);
  CPPUNIT_TEST(testRefusedAtUpdate);
  CPPUNIT_TEST(testRefusedAtDelivery);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testRefusedAtCreate() {
    HttpClient client(guardedServer().port());
    const Account account = registerUser(client, "guard-create");
    for (const std::string& host : kForbiddenHosts) {
      for (const std::string& url : {"https://" + host + "/hooks", "https://" + host + ":8443/x"}) {
        const HttpResult result =
            client.post("/v1/webhooks", Json::object({{"url", url}, {"events", kContactCreated}}),
                        bearer(account.token));
        assertRefused(url, result);
      }
    }
    // The unspecified IPv6 address, by the address rule like the others.
    assertRefused(
        "https://[::]/hooks",
        client.post("/v1/webhooks",
                    Json::object({{"url", "https://[::]/hooks"}, {"events", kContactCreated}}),
                    bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0),
                         getBody(client, account.token, "/v1/webhooks")["meta"]["total"].asInt());
    // A public address is fine.
    createWebhook(client, account.token, kPublicUrl, kContactCreated);
    createWebhook(client, account.token, "https://[2606:4700:4700::1111]/hooks", kContactCreated);
  }

  void testRefusedAtUpdate() {
    HttpClient client(guardedServer().port());
    const Account account = registerUser(client, "guard-update");
    const Json webhook = createWebhook(client, account.token, kPublicUrl, kContactCreated);
    for (const std::string& host : kForbiddenHosts) {
      const std::string url = "https://" + host + "/hooks";
      const HttpResult result =
          client.patch(webhookPath(webhook), Json::object({{"url", url}}), bearer(account.token));
      assertRefused(url, result);
    }
    const Json read = E2E_ASSERT_DATA(200, client.get(webhookPath(webhook), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(kPublicUrl, read["url"].asString());
  }

  // Registered while private targets were allowed; the server restarts on
  // the same database without the allowance: deliveries (worker and ping)
  // fail without any request reaching the receiver.
  void testRefusedAtDelivery() {
    Receiver receiver;
    ServerProcess::Settings allowed = deliverySettings();
    auto first = std::make_unique<ServerProcess>(allowed);
    const std::string database = first->databaseUrl();
    const std::string workDir = first->workDir();
    HttpClient before(first->port());
    const Account account = registerUser(before, "guard-delivery");
    const Json webhook =
        createWebhook(before, account.token, receiver.url("/inside"), kContactCreated);
    CPPUNIT_ASSERT_EQUAL(0, first->stop());
    first.reset();

    ServerProcess::Settings guarded = allowed;
    guarded.erase("webhooks.allow_private_targets");
    guarded["webhooks.retry_schedule"] = "0,1";  // two attempts, then failed
    guarded["database.url"] = database;
    ServerProcess second(guarded, {}, {}, workDir);
    HttpClient client(second.port());
    createContact(client, account.token, Json::object({{"name", "Exfiltrate"}}));
    const Json data = waitForDeliveries(
        client, account.token, webhook,
        [](const Json& d) { return d.size() == 1 && isFinal(d.asArray()[0]); }, 20s);
    const Json& delivery = data.asArray()[0];
    CPPUNIT_ASSERT_EQUAL_MESSAGE(delivery.dump(), std::string("failed"),
                                 delivery["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), delivery["attempts"].asInt());
    CPPUNIT_ASSERT(delivery["response_code"].isNull());

    const Json ping = E2E_ASSERT_DATA(
        200, client.post(webhookPath(webhook, "/ping"), Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("failed"), ping["status"].asString());
    CPPUNIT_ASSERT(ping["response_code"].isNull());
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), receiver.count());
    // Whatever the server logged about it, the secret is not there.
    const std::string log = second.log();
    CPPUNIT_ASSERT(log.find(webhook["secret"].asString()) == std::string::npos);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(WebhooksGuardTest);
