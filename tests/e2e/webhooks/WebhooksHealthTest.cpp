// Self-healing webhooks (docs/modules/webhooks.md, "Self-healing"; issue
// 12): a server whose webhooks are disabled after 3 s of failed deliveries
// only (webhooks.disable_after_seconds=3, checked every second, one attempt
// per delivery): the disable with its webhook.disabled event (to the other
// webhooks only) and its mail to each owner (not to members), no attempts
// after it, a success inside the period keeps the webhook, and
// POST /webhooks/{id}/enable with and without a backfill of the events
// recorded while it was disabled.
//
// Where a test proves that something does NOT happen, it waits a bounded
// time longer than a check interval plus the worker's poll (kQuiet).
#include <cppunit/extensions/HelperMacros.h>

#include <thread>

#include "e2e/webhooks/WebhooksSuite.h"
#include "support/smtp/Mailbox.h"

using namespace rapport::e2e;
using namespace rapport::e2e::webhooks;
using rapport::test::smtp::Mail;

namespace {

constexpr int kDisableAfterSeconds = 3;
// A failing webhook is disabled within the period, a check and an attempt.
constexpr auto kDisableLimit = 20s;
// Longer than a check interval (1 s) plus the worker's poll (1 s) and an attempt.
constexpr auto kQuiet = 3500ms;
const Json kContactCreated = eventsList({"crm.contact.created"});

ServerProcess& healthServer() {
  static ServerProcess server(
      deliverySettings({{"webhooks.retry_schedule", "0"},
                        {"webhooks.disable_after_seconds", std::to_string(kDisableAfterSeconds)},
                        {"webhooks.health_check_seconds", "1"}}));
  return server;
}

std::string outbox() {
  return healthServer().workDir() + "/data/outbox";
}

Json readWebhook(HttpClient& client, const std::string& token, const Json& webhook) {
  return E2E_ASSERT_DATA(200, client.get(webhookPath(webhook), bearer(token)));
}

// Polls GET /webhooks/{id} until it is inactive; returns it.
Json waitDisabled(HttpClient& client, const std::string& token, const Json& webhook) {
  Json read;
  const bool disabled = waitUntil(
      [&] {
        read = readWebhook(client, token, webhook);
        return !read["is_active"].asBool();
      },
      kDisableLimit);
  if (!disabled) CPPUNIT_FAIL("the webhook was never disabled: " + read.dump());
  return read;
}

// A webhook on `path` of a receiver answering 500, disabled by the server
// after one failed contact delivery; returns it as GET shows it.
Json disabledWebhook(HttpClient& client, const Account& account, Receiver& receiver,
                     const std::string& path, const Json& events = kContactCreated) {
  receiver.script(path, {Answer::status(500, "down")});
  const Json webhook = createWebhook(client, account.token, receiver.url(path), events);
  createContact(client, account.token, Json::object({{"name", "Before"}}));
  CPPUNIT_ASSERT(receiver.waitForRequests(1, 10s, path));
  return waitDisabled(client, account.token, webhook);
}

Json enable(HttpClient& client, const std::string& token, const Json& webhook, const Json& body) {
  return E2E_ASSERT_DATA(200, client.post(webhookPath(webhook, "/enable"), body, bearer(token)));
}

// The names of the contacts the receiver got on `path`, in arrival order.
std::vector<std::string> receivedNames(const Receiver& receiver, const std::string& path) {
  std::vector<std::string> names;
  for (const ReceivedRequest& request : receiver.requests(path)) {
    names.push_back(Json::parse(request.body)["data"]["name"].asString());
  }
  return names;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

class WebhooksHealthTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(WebhooksHealthTest);
  CPPUNIT_TEST(testFailingWebhookIsDisabledAndOwnersTold);
  CPPUNIT_TEST(testSuccessInsideThePeriodKeepsTheWebhook);
  CPPUNIT_TEST(testEnableWithBackfillDeliversWhatWasMissed);
  CPPUNIT_TEST(testEnableWithoutBackfillDeliversNothingMissed);
  CPPUNIT_TEST(testEnableChecksItsBodyAndRole);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testFailingWebhookIsDisabledAndOwnersTold() {
    Receiver receiver;
    HttpClient client(healthServer().port());
    const Account owner = registerUser(client, "health-owner");
    const Account coOwner = joinAs(client, owner, "owner", "health-coowner");
    const Account member = joinAs(client, owner, "member", "health-member");
    // The failing webhook also subscribes to webhook.disabled: it must not get its own.
    receiver.script("/down", {Answer::status(500, "down")});
    const Json failing = createWebhook(client, owner.token, receiver.url("/down"),
                                       eventsList({"crm.contact.created", "webhook.disabled"}));
    const Json watcher = createWebhook(client, owner.token, receiver.url("/watch"),
                                       eventsList({"webhook.disabled"}));
    createContact(client, owner.token, Json::object({{"name", "Lost"}}));

    const Json disabled = waitDisabled(client, owner.token, failing);
    CPPUNIT_ASSERT_EQUAL(std::string("failing"), disabled["disabled_reason"].asString());
    const auto disabledAt = E2E_ASSERT_ISO_UTC(disabled["disabled_at"]);
    CPPUNIT_ASSERT(disabledAt >= E2E_ASSERT_ISO_UTC(failing["created_at"]));
    CPPUNIT_ASSERT_EQUAL(true, readWebhook(client, owner.token, watcher)["disabled_at"].isNull());

    // One webhook.disabled event, carrying the webhook as GET shows it, to the watcher.
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 10s, "/watch"));
    const Json envelope = Json::parse(receiver.requests("/watch")[0].body);
    CPPUNIT_ASSERT_EQUAL(std::string("webhook.disabled"), envelope["event"].asString());
    WEBHOOKS_ASSERT_SAME_JSON(disabled, envelope["data"]);

    // A mail to each owner, none to the member.
    for (const Account* to : {&owner, &coOwner}) {
      const std::vector<Mail> mails = rapport::test::smtp::waitForMailTo(outbox(), to->email, 1);
      CPPUNIT_ASSERT_EQUAL(std::size_t(1), mails.size());
      const Mail& mail = mails[0];
      CPPUNIT_ASSERT_MESSAGE(mail.subject, contains(mail.subject, "Webhook disabled"));
      CPPUNIT_ASSERT_MESSAGE(mail.text, contains(mail.text, receiver.url("/down")));
      CPPUNIT_ASSERT_MESSAGE(mail.text, contains(mail.text, "Last error: HTTP 500"));
      CPPUNIT_ASSERT_MESSAGE(
          mail.text,
          contains(mail.text, "POST /v1/webhooks/" + failing["id"].asString() + "/enable"));
    }

    // Nothing more: no attempt to the disabled webhook (a new contact makes
    // no delivery), no second notice, no mail to the member.
    createContact(client, owner.token, Json::object({{"name", "Ignored"}}));
    CPPUNIT_ASSERT(!receiver.waitForRequests(2, kQuiet, "/down"));
    CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.created"),
                         Json::parse(receiver.requests("/down")[0].body)["event"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), receiver.count("/watch"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), deliveriesOf(client, owner.token, failing)["data"].size());
    for (const Mail& mail : rapport::test::smtp::readMailbox(outbox())) {
      CPPUNIT_ASSERT_MESSAGE(mail.file, mail.to.find(member.email) == std::string::npos);
    }
  }

  // Failed, then a success: the streak ended, so the period passing changes nothing.
  void testSuccessInsideThePeriodKeepsTheWebhook() {
    Receiver receiver;
    receiver.script("/flaky", {Answer::status(500, "oops"), Answer::status(200, "fine")});
    HttpClient client(healthServer().port());
    const Account account = registerUser(client, "health-flaky");
    const Json webhook =
        createWebhook(client, account.token, receiver.url("/flaky"), kContactCreated);
    createContact(client, account.token, Json::object({{"name", "First"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 10s, "/flaky"));
    createContact(client, account.token, Json::object({{"name", "Second"}}));
    waitForDeliveries(
        client, account.token, webhook,
        [](const Json& d) {
          return d.size() == 2 && isFinal(d.asArray()[0]) && isFinal(d.asArray()[1]);
        },
        10s);
    // Past the period since the failure, and a check more.
    std::this_thread::sleep_for(std::chrono::seconds(kDisableAfterSeconds) + kQuiet);
    const Json read = readWebhook(client, account.token, webhook);
    CPPUNIT_ASSERT_MESSAGE(read.dump(), read["is_active"].asBool());
    CPPUNIT_ASSERT(read["disabled_reason"].isNull());
    CPPUNIT_ASSERT(read["disabled_at"].isNull());
  }

  void testEnableWithBackfillDeliversWhatWasMissed() {
    Receiver receiver;
    HttpClient client(healthServer().port());
    const Account account = registerUser(client, "health-backfill");
    const Json webhook = disabledWebhook(client, account, receiver, "/hook");
    // Missed while disabled, in this order; then the receiver recovers.
    for (const char* name : {"Missed A", "Missed B", "Missed C"}) {
      createContact(client, account.token, Json::object({{"name", name}}));
    }
    receiver.script("/hook", {Answer::status(200, "back")});

    const Json answer = enable(client, account.token, webhook, Json::object({{"backfill", true}}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), answer["backfilled"].asInt());
    CPPUNIT_ASSERT_EQUAL(false, answer["truncated"].asBool());
    const Json& enabled = answer["webhook"];
    CPPUNIT_ASSERT_EQUAL(true, enabled["is_active"].asBool());
    CPPUNIT_ASSERT(enabled["disabled_reason"].isNull());
    CPPUNIT_ASSERT(enabled["disabled_at"].isNull());
    WEBHOOKS_ASSERT_SAME_JSON(enabled, readWebhook(client, account.token, webhook));

    // Exactly the missed events, in order, once each (the one before the
    // disable failed and stays failed).
    CPPUNIT_ASSERT(receiver.waitForRequests(4, 10s, "/hook"));
    CPPUNIT_ASSERT(!receiver.waitForRequests(5, kQuiet, "/hook"));
    const std::vector<std::string> expected = {"Before", "Missed A", "Missed B", "Missed C"};
    CPPUNIT_ASSERT(expected == receivedNames(receiver, "/hook"));

    // Enabled already: a backfill is refused, a plain enable changes nothing.
    CRM_ASSERT_ERROR_MESSAGE(
        409, "The webhook is already enabled.",
        client.post(webhookPath(webhook, "/enable"), Json::object({{"backfill", true}}),
                    bearer(account.token)));
    const Json again = enable(client, account.token, webhook, Json::object());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), again["backfilled"].asInt());
    WEBHOOKS_ASSERT_SAME_JSON(enabled, again["webhook"]);
  }

  void testEnableWithoutBackfillDeliversNothingMissed() {
    Receiver receiver;
    HttpClient client(healthServer().port());
    const Account account = registerUser(client, "health-plain");
    const Json webhook = disabledWebhook(client, account, receiver, "/hook");
    createContact(client, account.token, Json::object({{"name", "Missed"}}));
    receiver.script("/hook", {Answer::status(200, "back")});

    const Json answer = enable(client, account.token, webhook, Json::object({{"backfill", false}}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), answer["backfilled"].asInt());
    CPPUNIT_ASSERT_EQUAL(true, answer["webhook"]["is_active"].asBool());
    CPPUNIT_ASSERT(!receiver.waitForRequests(2, kQuiet, "/hook"));
    // New events flow again.
    createContact(client, account.token, Json::object({{"name", "After"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(2, 10s, "/hook"));
    const std::vector<std::string> expected = {"Before", "After"};
    CPPUNIT_ASSERT(expected == receivedNames(receiver, "/hook"));
  }

  void testEnableChecksItsBodyAndRole() {
    HttpClient client(healthServer().port());
    const Account owner = registerUser(client, "health-roles");
    const Account member = joinAs(client, owner, "member", "health-roles-member");
    const Json webhook = createWebhook(client, owner.token, "https://localhost:9/x",
                                       kContactCreated, Json::object({{"is_active", false}}));
    const std::string path = webhookPath(webhook, "/enable");
    E2E_ASSERT_ERROR(403, client.post(path, Json::object(), bearer(member.token)));
    CRM_ASSERT_FIELD_ERROR(
        client.post(path, Json::object({{"backfill", "yes"}}), bearer(owner.token)), "backfill",
        "");
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Webhook not found.",
        client.post("/v1/webhooks/whk_none/enable", Json::object(), bearer(owner.token)));
    // Still inactive after the refusals; the owner enables it.
    CPPUNIT_ASSERT_EQUAL(false, readWebhook(client, owner.token, webhook)["is_active"].asBool());
    CPPUNIT_ASSERT_EQUAL(
        true,
        enable(client, owner.token, webhook, Json::object())["webhook"]["is_active"].asBool());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(WebhooksHealthTest);
