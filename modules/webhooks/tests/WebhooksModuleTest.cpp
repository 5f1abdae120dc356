// module.webhooks: the webhooks module through the in-process harness
// (docs/modules/webhooks.md), with contacts as a source of events: the event
// catalogue of the enabled modules, a webhook's main path, its validation,
// the role rule (owners and admins only), tenancy, and the delivery an event
// leaves in the outbox. The first attempt is an hour away
// (webhooks.retry_schedule = 3600): nothing is sent while the test runs.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <string>

#include "rapport/testing.h"

namespace {

using rapport::Json;
using rapport::Role;
using rapport::testing::Client;
using rapport::testing::Harness;
using rapport::testing::HarnessOptions;
using rapport::testing::Reply;

// A public address literal: accepted by the guard without a DNS lookup.
const std::string kReceiver = "https://93.184.216.34/hook";

Json subscription(const std::string& url, Json events) {
  return Json::object({{"url", url}, {"events", std::move(events)}});
}

bool lists(const Json& types, const std::string& event, const std::string& module) {
  for (const Json& type : types.asArray()) {
    if (type["event"].asString() == event) return type["module"].asString() == module;
  }
  return false;
}

}  // namespace

class WebhooksModuleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(WebhooksModuleTest);
  CPPUNIT_TEST(catalogueListsTheEnabledModulesEvents);
  CPPUNIT_TEST(createReadUpdateDelete);
  CPPUNIT_TEST(urlAndEventsAreValidated);
  CPPUNIT_TEST(onlyOwnersAndAdminsManageWebhooks);
  CPPUNIT_TEST(anotherCompanysWebhookIsNotFound);
  CPPUNIT_TEST(eventLeavesADeliveryForItsSubscribers);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    harness_ = std::make_unique<Harness>(HarnessOptions{
        .modules = {"webhooks", "contacts"}, .settings = {{"webhooks.retry_schedule", "3600"}}});
  }
  void tearDown() override { harness_.reset(); }

  void catalogueListsTheEnabledModulesEvents() {
    Client member = harness_->join(harness_->signUp(), Role::Member);
    Reply types = member.get("/v1/webhooks/events");
    CPPUNIT_ASSERT_EQUAL(200, types.status);
    CPPUNIT_ASSERT(lists(types.data(), "crm.contact.created", "contacts"));
    CPPUNIT_ASSERT(lists(types.data(), "webhook.ping", "webhooks"));
    CPPUNIT_ASSERT(!lists(types.data(), "crm.deal.created", "deals"));
  }

  void createReadUpdateDelete() {
    Client alice = harness_->signUp();
    Reply made =
        alice.post("/v1/webhooks", subscription(kReceiver, Json::Array{"crm.contact.created"}));
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Webhook created."), made.message());
    CPPUNIT_ASSERT_EQUAL(0u,
                         static_cast<unsigned>(made.data()["secret"].asString().find("whsec_")));
    CPPUNIT_ASSERT_EQUAL(true, made.data()["is_active"].asBool());
    const std::string path = "/v1/webhooks/" + made.data()["id"].asString();
    Reply shown = alice.get(path);
    CPPUNIT_ASSERT_EQUAL(200, shown.status);
    // The secret is shown once, at creation.
    CPPUNIT_ASSERT(!shown.data().contains("secret"));
    Reply paused = alice.patch(path, Json::object({{"is_active", false}}));
    CPPUNIT_ASSERT_EQUAL(200, paused.status);
    CPPUNIT_ASSERT_EQUAL(false, paused.data()["is_active"].asBool());
    Reply deleted = alice.del(path);
    CPPUNIT_ASSERT_EQUAL(200, deleted.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Webhook deleted."), deleted.message());
    Reply gone = alice.get(path);
    CPPUNIT_ASSERT_EQUAL(404, gone.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Webhook not found."), gone.message());
  }

  void urlAndEventsAreValidated() {
    Client alice = harness_->signUp();
    Reply plain = alice.post("/v1/webhooks", subscription("http://93.184.216.34/hook",
                                                          Json::Array{"crm.contact.created"}));
    CPPUNIT_ASSERT_EQUAL(422, plain.status);
    CPPUNIT_ASSERT_EQUAL(std::string("url must be a valid https URL"),
                         plain.fieldErrors("url").at(0));
    Reply loopback = alice.post(
        "/v1/webhooks", subscription("https://127.0.0.1/hook", Json::Array{"crm.contact.created"}));
    CPPUNIT_ASSERT_EQUAL(422, loopback.status);
    CPPUNIT_ASSERT_EQUAL(
        std::string("url must not point at a private, loopback or reserved address"),
        loopback.fieldErrors("url").at(0));
    // deals is not enabled: its events are unknown here.
    Reply unknown =
        alice.post("/v1/webhooks", subscription(kReceiver, Json::Array{"crm.deal.created"}));
    CPPUNIT_ASSERT_EQUAL(422, unknown.status);
    CPPUNIT_ASSERT_EQUAL(
        std::string("Unknown event type: crm.deal.created. GET /v1/webhooks/events lists the "
                    "known ones."),
        unknown.fieldErrors("events").at(0));
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), alice.get("/v1/webhooks").data().size());
  }

  void onlyOwnersAndAdminsManageWebhooks() {
    Client owner = harness_->signUp();
    Client admin = harness_->join(owner, Role::Admin);
    Client member = harness_->join(owner, Role::Member);
    const Json body = subscription(kReceiver, Json::Array{"crm.contact.created"});
    Reply refused = member.post("/v1/webhooks", body);
    CPPUNIT_ASSERT_EQUAL(403, refused.status);
    CPPUNIT_ASSERT_EQUAL(std::string("No permission."), refused.message());
    CPPUNIT_ASSERT_EQUAL(403, member.get("/v1/webhooks").status);
    Reply made = admin.post("/v1/webhooks", body);
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    const std::string path = "/v1/webhooks/" + made.data()["id"].asString();
    CPPUNIT_ASSERT_EQUAL(403, member.get(path).status);
    CPPUNIT_ASSERT_EQUAL(403, member.del(path).status);
    CPPUNIT_ASSERT_EQUAL(200, owner.get(path).status);
  }

  void anotherCompanysWebhookIsNotFound() {
    Client alice = harness_->signUp();
    Client mallory = harness_->signUp();
    const std::string path =
        "/v1/webhooks/" +
        alice.post("/v1/webhooks", subscription(kReceiver, Json::Array{"crm.contact.created"}))
            .data()["id"]
            .asString();
    CPPUNIT_ASSERT_EQUAL(404, mallory.get(path).status);
    CPPUNIT_ASSERT_EQUAL(404, mallory.get(path + "/deliveries").status);
    CPPUNIT_ASSERT_EQUAL(404, mallory.del(path).status);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), mallory.get("/v1/webhooks").data().size());
    CPPUNIT_ASSERT_EQUAL(200, alice.get(path).status);
  }

  void eventLeavesADeliveryForItsSubscribers() {
    Client alice = harness_->signUp();
    Client bob = harness_->signUp();
    const std::string path =
        "/v1/webhooks/" +
        alice.post("/v1/webhooks", subscription(kReceiver, Json::Array{"crm.contact.created"}))
            .data()["id"]
            .asString();
    const std::string contactId =
        alice.post("/v1/crm/contacts", Json::object({{"name", "Ada"}})).data()["id"].asString();
    // Not subscribed: an update; not this tenant: bob's contact.
    alice.patch("/v1/crm/contacts/" + contactId, Json::object({{"name", "Ada L"}}));
    bob.post("/v1/crm/contacts", Json::object({{"name", "Grace"}}));

    Reply deliveries = alice.get(path + "/deliveries");
    CPPUNIT_ASSERT_EQUAL(200, deliveries.status);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), deliveries.data().size());
    const Json& delivery = deliveries.data().asArray()[0];
    CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.created"), delivery["event"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), delivery["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), delivery["attempts"].asInt());
    Reply detail = alice.get(path + "/deliveries/" + delivery["id"].asString());
    CPPUNIT_ASSERT_EQUAL(200, detail.status);
    CPPUNIT_ASSERT_EQUAL(contactId, detail.data()["payload"]["data"]["id"].asString());
  }

 private:
  std::unique_ptr<Harness> harness_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(WebhooksModuleTest);
