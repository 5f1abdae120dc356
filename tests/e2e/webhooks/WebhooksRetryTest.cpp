// Attempts and retries (API Webhook delivery states, Delivery and retries;
// decisions §8) with the delivery server's short schedule (6 attempts, 1 s
// apart) and 2 s time-out: 2xx ends in success, anything else (status,
// time-out, redirect, an endless answer) is a failed attempt and retried
// until the attempts run out; ping and manual retry make one synchronous
// attempt; the deliveries list, its filters and the detail; inactive,
// deleted and other companies' webhooks get nothing.
//
// Where a test proves that something does NOT happen, it waits a bounded
// time longer than the schedule's gap plus the worker's poll interval
// (kQuiet): a retry that was due would have come by then.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/webhooks/WebhooksSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::webhooks;

namespace {

const Json kContactCreated = eventsList({"crm.contact.created"});
// Longer than a retry gap (1 s) plus the worker's interval (1 s) and an attempt.
constexpr auto kQuiet = 3500ms;
// Enough for 6 attempts 1 s apart on a busy machine.
constexpr auto kAllAttempts = 30s;

std::string onlyId(const Json& data) {
  CPPUNIT_ASSERT_EQUAL_MESSAGE(data.dump(), std::size_t(1), data.size());
  return data.asArray()[0]["id"].asString();
}

}  // namespace

class WebhooksRetryTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(WebhooksRetryTest);
  CPPUNIT_TEST(testFailureThenSuccess);
  CPPUNIT_TEST(testAttemptsRunOutThenManualRetry);
  CPPUNIT_TEST(testTimeOutIsAFailedAttempt);
  CPPUNIT_TEST(testRedirectIsAFailedAttemptAndNotFollowed);
  CPPUNIT_TEST(testEndlessAnswerIsCut);
  CPPUNIT_TEST(testPing);
  CPPUNIT_TEST(testFailedPingIsNeverRetried);
  CPPUNIT_TEST(testManualRetryOnlyForFailed);
  CPPUNIT_TEST(testDeliveriesListFiltersAndDetail);
  CPPUNIT_TEST(testInactiveWebhookGetsNoDelivery);
  CPPUNIT_TEST(testDeleteStopsPendingDeliveries);
  CPPUNIT_TEST(testOtherCompanysWebhookNeverReceives);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testFailureThenSuccess() {
    Receiver receiver;
    receiver.script("/a", {Answer::status(500, "oops"), Answer::status(200, "fine")});
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "retry-ok");
    const Json webhook = createWebhook(client, account.token, receiver.url("/a"), kContactCreated);
    createContact(client, account.token, Json::object({{"name", "Retry"}}));
    const Json data = waitForDeliveries(
        client, account.token, webhook,
        [](const Json& d) { return d.size() == 1 && isFinal(d.asArray()[0]); }, kAllAttempts);
    const Json& delivery = data.asArray()[0];
    CPPUNIT_ASSERT_EQUAL_MESSAGE(delivery.dump(), std::string("success"),
                                 delivery["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), delivery["attempts"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(200), delivery["response_code"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("fine"), deliveryOf(client, account.token, webhook,
                                                         delivery["id"].asString())["response_body"]
                                                  .asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), receiver.count("/a"));
    // The second attempt came after the schedule's gap.
    const auto requests = receiver.requests("/a");
    CPPUNIT_ASSERT(requests[1].receivedAt - requests[0].receivedAt >= 900ms);
  }

  // Always 500: failed after the 6th attempt, the first 4 KiB of the last
  // answer kept; then a manual retry makes a 7th attempt, and an 8th.
  void testAttemptsRunOutThenManualRetry() {
    Receiver receiver;
    std::string longBody;
    for (int i = 0; longBody.size() < 6000; ++i) longBody += std::to_string(i % 10);
    receiver.script("/down", {Answer::status(500, longBody)});
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "retry-fail");
    const Json webhook =
        createWebhook(client, account.token, receiver.url("/down"), kContactCreated);
    createContact(client, account.token, Json::object({{"name", "Doomed"}}));
    const Json data = waitForDeliveries(
        client, account.token, webhook,
        [](const Json& d) { return d.size() == 1 && isFinal(d.asArray()[0]); }, kAllAttempts);
    const std::string id = onlyId(data);
    const Json failed = deliveryOf(client, account.token, webhook, id);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(failed.dump(), std::string("failed"), failed["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(kAttempts), failed["attempts"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(500), failed["response_code"].asInt());
    CPPUNIT_ASSERT_EQUAL(longBody.substr(0, 4096), failed["response_body"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(kAttempts), receiver.count("/down"));
    // No automatic attempt after failed.
    CPPUNIT_ASSERT(!receiver.waitForRequests(kAttempts + 1, kQuiet, "/down"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(kAttempts),
                         deliveryOf(client, account.token, webhook, id)["attempts"].asInt());

    // Manual retry, still failing: one synchronous attempt, still failed.
    const std::string retryPath = webhookPath(webhook, "/deliveries/" + id + "/retry");
    const Json again =
        E2E_ASSERT_DATA(200, client.post(retryPath, Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(kAttempts + 1), receiver.count("/down"));
    CPPUNIT_ASSERT_EQUAL(id, again["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.created"), again["event"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("failed"), again["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(500), again["response_code"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(kAttempts + 1), again["attempts"].asInt());
    E2E_ASSERT_ISO_UTC(again["last_attempt_at"]);

    // The receiver recovers: the retry succeeds.
    receiver.script("/down", {Answer::status(204, "")});
    const Json retried =
        E2E_ASSERT_DATA(200, client.post(retryPath, Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("success"), retried["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(204), retried["response_code"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(kAttempts + 2), retried["attempts"].asInt());
    const auto requests = receiver.requests("/down");
    CPPUNIT_ASSERT_EQUAL(std::size_t(kAttempts + 2), requests.size());
    // The same delivery every time, signed afresh.
    for (const auto& request : requests) {
      CPPUNIT_ASSERT_EQUAL(id, request.header("X-Service-Delivery"));
      CPPUNIT_ASSERT_EQUAL(requests[0].body, request.body);
      CPPUNIT_ASSERT(signedWith(request, webhook["secret"].asString()));
    }
    const Json detail = deliveryOf(client, account.token, webhook, id);
    CPPUNIT_ASSERT_EQUAL(std::string("success"), detail["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string(""), detail["response_body"].asString());
    // success is final: 409.
    CRM_ASSERT_ERROR_MESSAGE(409, "The delivery is not in a resendable state.",
                             client.post(retryPath, Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(kAttempts + 2), receiver.count("/down"));
  }

  // A receiver that never answers: the attempt ends at the time-out, is
  // recorded without a response code, and the delivery is retried.
  void testTimeOutIsAFailedAttempt() {
    Receiver receiver;
    receiver.script("/slow", {Answer::hang()});
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "retry-timeout");
    const Json webhook =
        createWebhook(client, account.token, receiver.url("/slow"), kContactCreated);

    // Ping: one synchronous attempt, so its length is the time-out.
    const auto start = std::chrono::steady_clock::now();
    const Json ping = E2E_ASSERT_DATA(
        200, client.post(webhookPath(webhook, "/ping"), Json::object(), bearer(account.token)));
    const auto took = std::chrono::steady_clock::now() - start;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(ping.dump(), std::string("failed"), ping["status"].asString());
    CPPUNIT_ASSERT_MESSAGE(ping.dump(), ping["response_code"].isNull());
    CPPUNIT_ASSERT(took >= kTimeout - 100ms);
    CPPUNIT_ASSERT(took < kTimeout + 2s);
    const Json pingDetail =
        deliveryOf(client, account.token, webhook, ping["delivery_id"].asString());
    CPPUNIT_ASSERT(pingDetail["response_code"].isNull());
    CPPUNIT_ASSERT(pingDetail["response_body"].isNull());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), pingDetail["attempts"].asInt());

    // An event: the hanging first attempt counts, the second one succeeds.
    receiver.script("/slow", {Answer::hang(), Answer::status(200, "ok")});
    createContact(client, account.token, Json::object({{"name", "Slowpoke"}}));
    const Json data = waitForDeliveries(
        client, account.token, webhook,
        [](const Json& d) {
          for (const Json& item : d.asArray()) {
            if (item["event"].asString() == "crm.contact.created") return isFinal(item);
          }
          return false;
        },
        kAllAttempts);
    Json delivery;
    for (const Json& item : data.asArray()) {
      if (item["event"].asString() == "crm.contact.created") delivery = item;
    }
    CPPUNIT_ASSERT_EQUAL_MESSAGE(delivery.dump(), std::string("success"),
                                 delivery["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), delivery["attempts"].asInt());
    const auto requests = receiver.requests("/slow");
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), requests.size());  // the ping, then two attempts
    // The second attempt waited for the first one's time-out.
    CPPUNIT_ASSERT(requests[2].receivedAt - requests[1].receivedAt >= kTimeout - 100ms);
  }

  // 301 is a failed attempt (with its code); the Location is never visited.
  void testRedirectIsAFailedAttemptAndNotFollowed() {
    Receiver receiver;
    receiver.script("/old", {Answer::redirect(receiver.url("/new"))});
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "retry-301");
    const Json webhook =
        createWebhook(client, account.token, receiver.url("/old"), kContactCreated);
    const Json ping = E2E_ASSERT_DATA(
        200, client.post(webhookPath(webhook, "/ping"), Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(ping.dump(), std::string("failed"), ping["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(301), ping["response_code"].asInt());

    receiver.script("/old", {Answer::redirect(receiver.url("/new")), Answer::status(200, "ok")});
    createContact(client, account.token, Json::object({{"name", "Moved"}}));
    const Json data = waitForDeliveries(
        client, account.token, webhook,
        [](const Json& d) {
          return d.size() == 2 && d.asArray()[0]["event"].asString() == "crm.contact.created" &&
                 isFinal(d.asArray()[0]);
        },
        kAllAttempts);
    const Json& delivery = data.asArray()[0];
    CPPUNIT_ASSERT_EQUAL_MESSAGE(delivery.dump(), std::string("success"),
                                 delivery["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), delivery["attempts"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), receiver.count("/old"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), receiver.count("/new"));
  }

  // A receiver that streams a body forever: the answer is read up to a cap
  // and cut, well within the time-out; response_body keeps the first 4 KiB.
  void testEndlessAnswerIsCut() {
    Receiver receiver;
    receiver.script("/firehose", {Answer::endless(500)});
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "retry-endless");
    const Json webhook =
        createWebhook(client, account.token, receiver.url("/firehose"), kContactCreated);
    const auto start = std::chrono::steady_clock::now();
    const Json ping = E2E_ASSERT_DATA(
        200, client.post(webhookPath(webhook, "/ping"), Json::object(), bearer(account.token)));
    const auto took = std::chrono::steady_clock::now() - start;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(ping.dump(), std::string("failed"), ping["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(500), ping["response_code"].asInt());
    CPPUNIT_ASSERT(took < kTimeout + 1s);
    const Json detail = deliveryOf(client, account.token, webhook, ping["delivery_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string(4096, 'x'), detail["response_body"].asString());
    // The server stopped reading: the receiver's writes ended (the peer
    // closed) after a bounded amount, not after the whole time-out's worth.
    CPPUNIT_ASSERT(receiver.waitForEndlessDone(1, 10s));
    const std::uint64_t written = receiver.endlessBytes().at(0);
    CPPUNIT_ASSERT_MESSAGE(std::to_string(written), written < 16ull * 1024 * 1024);

    // A 200 that never ends: the worker's attempt ends within the time-out
    // too (whether a cut 2xx counts as a success is the server's choice: a
    // retry, if any, is answered 200).
    receiver.script("/firehose", {Answer::endless(200), Answer::status(200, "ok")});
    createContact(client, account.token, Json::object({{"name", "Flood"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(2, 15s, "/firehose"));
    const auto received = receiver.requests("/firehose").at(1).receivedAt;
    const Json data = waitForDeliveries(
        client, account.token, webhook,
        [](const Json& d) { return d.size() == 2 && d.asArray()[0]["attempts"].asInt() >= 1; },
        15s);
    CPPUNIT_ASSERT(std::chrono::steady_clock::now() - received < kTimeout + 2s);
    waitForDeliveries(
        client, account.token, webhook,
        [](const Json& d) { return d.size() == 2 && isFinal(d.asArray()[0]); }, kAllAttempts);
    CPPUNIT_ASSERT(receiver.waitForEndlessDone(2, 10s));
    CPPUNIT_ASSERT(receiver.endlessBytes().at(1) < 16ull * 1024 * 1024);
    CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.created"), data.asArray()[0]["event"].asString());
  }

  void testPing() {
    Receiver receiver;
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "ping");
    // Ping works whatever the webhook subscribes to.
    const Json webhook = createWebhook(client, account.token, receiver.url("/p"), kContactCreated);
    const HttpResult result =
        client.post(webhookPath(webhook, "/ping"), Json::object(), bearer(account.token));
    const Json ping = E2E_ASSERT_DATA(200, result);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(ping.dump(), std::size_t(4), ping.size());
    CPPUNIT_ASSERT(ping["delivery_id"].asString().rfind("whd_", 0) == 0);
    CPPUNIT_ASSERT_EQUAL(std::string("webhook.ping"), ping["event"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("success"), ping["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(200), ping["response_code"].asInt());
    // Synchronous: the receiver already has it.
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), receiver.count("/p"));
    const ReceivedRequest request = receiver.requests().at(0);
    CPPUNIT_ASSERT_EQUAL(std::string("webhook.ping"), request.header("X-Service-Event"));
    CPPUNIT_ASSERT_EQUAL(ping["delivery_id"].asString(), request.header("X-Service-Delivery"));
    CPPUNIT_ASSERT(signedWith(request, webhook["secret"].asString()));
    const Json envelope = Json::parse(request.body);
    CPPUNIT_ASSERT_EQUAL(std::string("webhook.ping"), envelope["event"].asString());
    CPPUNIT_ASSERT(envelope["id"].asString().rfind("evt_", 0) == 0);
    WEBHOOKS_ASSERT_SAME_JSON(Json::object({{"webhook_id", webhook["id"]}}), envelope["data"]);
    // Recorded.
    const Json list = deliveriesOf(client, account.token, webhook);
    CPPUNIT_ASSERT_EQUAL(std::string(ping["delivery_id"].asString()), onlyId(list["data"]));
    const Json detail = deliveryOf(client, account.token, webhook, ping["delivery_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("success"), detail["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), detail["attempts"].asInt());
    WEBHOOKS_ASSERT_SAME_JSON(envelope, detail["payload"]);
  }

  void testFailedPingIsNeverRetried() {
    Receiver receiver;
    receiver.script("/p", {Answer::status(500, "nope")});
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "ping-500");
    const Json webhook = createWebhook(client, account.token, receiver.url("/p"), kContactCreated);
    const Json ping = E2E_ASSERT_DATA(
        200, client.post(webhookPath(webhook, "/ping"), Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("failed"), ping["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(500), ping["response_code"].asInt());
    CPPUNIT_ASSERT(!receiver.waitForRequests(2, kQuiet, "/p"));
    const Json detail = deliveryOf(client, account.token, webhook, ping["delivery_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("failed"), detail["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), detail["attempts"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("nope"), detail["response_body"].asString());
    // A failed ping can be retried by hand like any failed delivery.
    receiver.script("/p", {Answer::status(200, "ok")});
    const Json retried = E2E_ASSERT_DATA(
        200, client.post(
                 webhookPath(webhook, "/deliveries/" + ping["delivery_id"].asString() + "/retry"),
                 Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("success"), retried["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), retried["attempts"].asInt());
  }

  // 409 while pending (an attempt in flight) and after success; 404 for a
  // delivery of another webhook.
  void testManualRetryOnlyForFailed() {
    Receiver receiver;
    receiver.script("/held", {Answer::hang()});
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "retry-409");
    const Json webhook =
        createWebhook(client, account.token, receiver.url("/held"), kContactCreated);
    const Json other = createWebhook(client, account.token, receiver.url("/other"),
                                     eventsList({"crm.company.created"}));
    createContact(client, account.token, Json::object({{"name", "Held"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 15s, "/held"));
    const std::string id = receiver.requests("/held").at(0).header("X-Service-Delivery");
    const Json pending = deliveryOf(client, account.token, webhook, id);
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), pending["status"].asString());
    CPPUNIT_ASSERT_EQUAL(
        id, onlyId(deliveriesOf(client, account.token, webhook, "status=pending")["data"]));
    const std::string retryPath = webhookPath(webhook, "/deliveries/" + id + "/retry");
    CRM_ASSERT_ERROR_MESSAGE(409, "The delivery is not in a resendable state.",
                             client.post(retryPath, Json::object(), bearer(account.token)));
    // Another webhook's path does not reach it.
    E2E_ASSERT_ERROR(404, client.post(webhookPath(other, "/deliveries/" + id + "/retry"),
                                      Json::object(), bearer(account.token)));
    E2E_ASSERT_ERROR(404,
                     client.get(webhookPath(other, "/deliveries/" + id), bearer(account.token)));

    // Answered before the time-out: success.
    receiver.script("/held", {Answer::status(200, "ok")});
    receiver.releaseHangs();
    const Json done = waitForDelivery(client, account.token, webhook, id, isFinal, 15s);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(done.dump(), std::string("success"), done["status"].asString());
    CRM_ASSERT_ERROR_MESSAGE(409, "The delivery is not in a resendable state.",
                             client.post(retryPath, Json::object(), bearer(account.token)));
    // The 409s made no attempt (a second one only if the release came after the time-out).
    CPPUNIT_ASSERT(receiver.count("/held") <= 2);
  }

  void testDeliveriesListFiltersAndDetail() {
    Receiver receiver;
    receiver.script("/list", {Answer::status(500, "broken")});
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "deliveries");
    const Json webhook = createWebhook(client, account.token, receiver.url("/list"),
                                       eventsList({"crm.contact.created", "crm.company.created"}));
    // A failed ping, then three successful deliveries.
    const std::string pingId =
        E2E_ASSERT_DATA(200, client.post(webhookPath(webhook, "/ping"), Json::object(),
                                         bearer(account.token)))["delivery_id"]
            .asString();
    receiver.script("/list", {Answer::status(202, "accepted")});
    std::vector<std::string> created;
    for (const char* name : {"First", "Second"}) {
      createContact(client, account.token, Json::object({{"name", name}}));
      CPPUNIT_ASSERT(receiver.waitForRequests(created.size() + 2, 15s, "/list"));
      created.push_back(receiver.requests("/list").back().header("X-Service-Delivery"));
    }
    createCrmCompany(client, account.token, Json::object({{"name", "Acme"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(4, 15s, "/list"));
    const std::string companyId = receiver.requests("/list").back().header("X-Service-Delivery");
    waitForDeliveries(
        client, account.token, webhook,
        [](const Json& d) {
          return d.size() == 4 && std::all_of(d.asArray().begin(), d.asArray().end(), isFinal);
        },
        15s);

    // Newest first.
    const Json all = deliveriesOf(client, account.token, webhook, "");
    CPPUNIT_ASSERT(idsOf(all) ==
                   (std::vector<std::string>{companyId, created[1], created[0], pingId}));
    CPPUNIT_ASSERT_EQUAL(
        Json::object({{"current_page", 1}, {"per_page", 20}, {"total", 4}, {"last_page", 1}})
            .dump(),
        all["meta"].dump());
    for (const Json& item : all["data"].asArray()) {
      std::set<std::string> members;
      for (const auto& member : item.asObject()) members.insert(member.first);
      CPPUNIT_ASSERT_MESSAGE(
          item.dump(),
          members == (std::set<std::string>{"id", "event", "status", "response_code", "attempts",
                                            "created_at", "last_attempt_at"}));
    }
    const auto ids = [&](const std::string& query) {
      return idsOf(deliveriesOf(client, account.token, webhook, query));
    };
    CPPUNIT_ASSERT(ids("status=failed") == std::vector<std::string>{pingId});
    CPPUNIT_ASSERT(ids("status=success") ==
                   (std::vector<std::string>{companyId, created[1], created[0]}));
    CPPUNIT_ASSERT(ids("status=pending").empty());
    CPPUNIT_ASSERT(ids("event=crm.contact.created") ==
                   (std::vector<std::string>{created[1], created[0]}));
    CPPUNIT_ASSERT(ids("event=webhook.ping&status=failed") == std::vector<std::string>{pingId});
    CPPUNIT_ASSERT(ids("event=crm.company.created&status=failed").empty());
    CPPUNIT_ASSERT(ids("event=crm.deal.won").empty());
    const Json page = deliveriesOf(client, account.token, webhook, "per_page=3&page=2");
    CPPUNIT_ASSERT(idsOf(page) == std::vector<std::string>{pingId});
    CPPUNIT_ASSERT_EQUAL(
        Json::object({{"current_page", 2}, {"per_page", 3}, {"total", 4}, {"last_page", 2}}).dump(),
        page["meta"].dump());
    CRM_ASSERT_FIELD_ERROR(
        client.get(webhookPath(webhook, "/deliveries?status=done"), bearer(account.token)),
        "status", "");
    CRM_ASSERT_FIELD_ERROR(
        client.get(webhookPath(webhook, "/deliveries?per_page=0"), bearer(account.token)),
        "per_page", "");

    // The detail adds payload (the envelope sent) and response_body.
    const Json failed = deliveryOf(client, account.token, webhook, pingId);
    CPPUNIT_ASSERT_EQUAL(std::string("broken"), failed["response_body"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(500), failed["response_code"].asInt());
    const Json company = deliveryOf(client, account.token, webhook, companyId);
    CPPUNIT_ASSERT_EQUAL(std::string("accepted"), company["response_body"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(202), company["response_code"].asInt());
    const ReceivedRequest sent = receiver.requests("/list").back();
    WEBHOOKS_ASSERT_SAME_JSON(Json::parse(sent.body), company["payload"]);
    Json summary = company;
    summary.erase("payload");
    summary.erase("response_body");
    WEBHOOKS_ASSERT_SAME_JSON(all["data"].asArray()[0], summary);
  }

  void testInactiveWebhookGetsNoDelivery() {
    Receiver receiver;
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "inactive");
    const Json off = createWebhook(client, account.token, receiver.url("/off"), kContactCreated,
                                   Json::object({{"is_active", false}}));
    const Json on = createWebhook(client, account.token, receiver.url("/on"), kContactCreated);
    createContact(client, account.token, Json::object({{"name", "Unheard"}}));
    // The fan-out writes every delivery of an event in the event's
    // transaction: once the active one is delivered, the inactive one would
    // exist too.
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 15s, "/on"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0),
                         deliveriesOf(client, account.token, off)["meta"]["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1),
                         deliveriesOf(client, account.token, on)["meta"]["total"].asInt());

    // Active again: new events are delivered to it.
    E2E_ASSERT_DATA(200, client.patch(webhookPath(off), Json::object({{"is_active", true}}),
                                      bearer(account.token)));
    createContact(client, account.token, Json::object({{"name", "Heard"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 15s, "/off"));
    CPPUNIT_ASSERT_EQUAL(
        std::string("Heard"),
        Json::parse(receiver.requests("/off").at(0).body)["data"]["name"].asString());
    CPPUNIT_ASSERT(receiver.waitForRequests(2, 15s, "/on"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), receiver.count("/off"));
  }

  // The first attempt fails, the second is in flight (held by the
  // receiver) when the webhook is deleted: it may finish, but no further
  // attempt follows although four were left.
  void testDeleteStopsPendingDeliveries() {
    Receiver receiver;
    receiver.script("/doomed",
                    {Answer::status(500, "no"), Answer::hang(), Answer::status(500, "no")});
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "delete-pending");
    const Json webhook =
        createWebhook(client, account.token, receiver.url("/doomed"), kContactCreated);
    createContact(client, account.token, Json::object({{"name", "Orphan"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(2, 15s, "/doomed"));
    const std::string id = receiver.requests("/doomed").at(0).header("X-Service-Delivery");
    const Json pending = deliveryOf(client, account.token, webhook, id);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(pending.dump(), std::string("pending"),
                                 pending["status"].asString());
    E2E_ASSERT_STATUS(200, client.del(webhookPath(webhook), bearer(account.token)));
    receiver.releaseHangs();
    CPPUNIT_ASSERT(!receiver.waitForRequests(3, kQuiet, "/doomed"));
    E2E_ASSERT_ERROR(404,
                     client.get(webhookPath(webhook, "/deliveries/" + id), bearer(account.token)));
    E2E_ASSERT_ERROR(404, client.get(webhookPath(webhook, "/deliveries"), bearer(account.token)));
  }

  void testOtherCompanysWebhookNeverReceives() {
    Receiver receiver;
    HttpClient client(deliveryServer().port());
    const Account mine = registerUser(client, "tenant-a");
    const Account theirs = registerUser(client, "tenant-b");
    const Json myHook = createWebhook(client, mine.token, receiver.url("/mine"),
                                      eventsList({"crm.contact.created", "crm.company.created"}));
    const Json theirHook =
        createWebhook(client, theirs.token, receiver.url("/theirs"),
                      eventsList({"crm.contact.created", "crm.company.created"}));
    createContact(client, theirs.token, Json::object({{"name", "Theirs"}}));
    createCrmCompany(client, theirs.token, Json::object({{"name", "Their Co"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(2, 15s, "/theirs"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), receiver.count("/mine"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0),
                         deliveriesOf(client, mine.token, myHook)["meta"]["total"].asInt());
    // And the other way round.
    createContact(client, mine.token, Json::object({{"name", "Mine"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 15s, "/mine"));
    CPPUNIT_ASSERT_EQUAL(
        std::string("Mine"),
        Json::parse(receiver.requests("/mine").at(0).body)["data"]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), receiver.count("/theirs"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2),
                         deliveriesOf(client, theirs.token, theirHook)["meta"]["total"].asInt());
    // A delivery id of the other company is not found through my webhook.
    const std::string theirDelivery =
        receiver.requests("/theirs").at(0).header("X-Service-Delivery");
    E2E_ASSERT_ERROR(
        404, client.get(webhookPath(myHook, "/deliveries/" + theirDelivery), bearer(mine.token)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(WebhooksRetryTest);
