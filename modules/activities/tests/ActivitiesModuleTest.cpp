// module.activities: the activities module through the in-process harness
// (docs/modules/activities.md), with contacts for links: an activity's main
// path (create, complete, reopen, delete), links to records of enabled
// modules only, tenancy, the owner rule, and its events.
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

Json call(const std::string& title) {
  return Json::object({{"type", "call"}, {"title", title}});
}

}  // namespace

class ActivitiesModuleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ActivitiesModuleTest);
  CPPUNIT_TEST(createCompleteReopenDelete);
  CPPUNIT_TEST(relatedRecordMustBeTheTenantsAndEnabled);
  CPPUNIT_TEST(anotherCompanysActivityIsNotFound);
  CPPUNIT_TEST(ownerMustBeAMemberOfTheCompany);
  CPPUNIT_TEST(eachChangeIsAnEvent);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    harness_ = std::make_unique<Harness>(HarnessOptions{.modules = {"activities", "contacts"}});
  }
  void tearDown() override { harness_.reset(); }

  void createCompleteReopenDelete() {
    Client alice = harness_->signUp();
    Reply made = alice.post("/v1/crm/activities", call("Intro call"));
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Activity created."), made.message());
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), made.data()["status"].asString());
    CPPUNIT_ASSERT(made.data()["related_to"].isNull());
    const std::string path = "/v1/crm/activities/" + made.data()["id"].asString();

    Reply completed = alice.post(path + "/complete", Json::object());
    CPPUNIT_ASSERT_EQUAL(200, completed.status);
    CPPUNIT_ASSERT_EQUAL(std::string("completed"), completed.data()["status"].asString());
    CPPUNIT_ASSERT(!completed.data()["completed_at"].isNull());
    Reply twice = alice.post(path + "/complete", Json::object());
    CPPUNIT_ASSERT_EQUAL(409, twice.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The activity is already completed."), twice.message());
    Reply reopened = alice.post(path + "/reopen", Json::object());
    CPPUNIT_ASSERT_EQUAL(200, reopened.status);
    CPPUNIT_ASSERT(reopened.data()["completed_at"].isNull());

    Reply badType = alice.patch(path, Json::object({{"type", "Call"}}));
    CPPUNIT_ASSERT_EQUAL(422, badType.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The selected type is invalid."),
                         badType.fieldErrors("type").at(0));
    CPPUNIT_ASSERT_EQUAL(200, alice.del(path).status);
    Reply gone = alice.get(path);
    CPPUNIT_ASSERT_EQUAL(404, gone.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Activity not found."), gone.message());
  }

  void relatedRecordMustBeTheTenantsAndEnabled() {
    Client alice = harness_->signUp();
    Client mallory = harness_->signUp();
    const std::string contactId =
        alice.post("/v1/crm/contacts", Json::object({{"name", "Ada"}})).data()["id"].asString();
    Json body = call("About Ada");
    body.set("related_to", Json::object({{"type", "contact"}, {"id", contactId}}));
    Reply linked = alice.post("/v1/crm/activities", body);
    CPPUNIT_ASSERT_EQUAL(201, linked.status);
    CPPUNIT_ASSERT_EQUAL(contactId, linked.data()["related_to"]["id"].asString());
    Reply listed = alice.get("/v1/crm/contacts/" + contactId + "/activities");
    CPPUNIT_ASSERT_EQUAL(200, listed.status);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), listed.data().size());

    Reply foreign = mallory.post("/v1/crm/activities", body);
    CPPUNIT_ASSERT_EQUAL(404, foreign.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Related record not found."), foreign.message());
    body.set("related_to", Json::object({{"type", "deal"}, {"id", "deal_x"}}));
    Reply disabled = alice.post("/v1/crm/activities", body);
    CPPUNIT_ASSERT_EQUAL(422, disabled.status);
    CPPUNIT_ASSERT_EQUAL(
        std::string("The related type deal is not available: the deals module is not enabled."),
        disabled.fieldErrors("related_to.type").at(0));
  }

  void anotherCompanysActivityIsNotFound() {
    Client alice = harness_->signUp();
    Client mallory = harness_->signUp();
    const std::string path = "/v1/crm/activities/" +
                             alice.post("/v1/crm/activities", call("Mine")).data()["id"].asString();
    CPPUNIT_ASSERT_EQUAL(404, mallory.get(path).status);
    CPPUNIT_ASSERT_EQUAL(404, mallory.post(path + "/complete", Json::object()).status);
    CPPUNIT_ASSERT_EQUAL(404, mallory.del(path).status);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), mallory.get("/v1/crm/activities").data().size());
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), alice.get(path).data()["status"].asString());
  }

  void ownerMustBeAMemberOfTheCompany() {
    Client owner = harness_->signUp();
    Client member = harness_->join(owner, Role::Member);
    Client stranger = harness_->signUp();
    Json body = call("Follow up");
    body.set("owner_id", member.userId());
    Reply made = owner.post("/v1/crm/activities", body);
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    CPPUNIT_ASSERT_EQUAL(member.userId(), made.data()["owner_id"].asString());
    // The member works on it like the owner.
    CPPUNIT_ASSERT_EQUAL(
        200, member
                 .post("/v1/crm/activities/" + made.data()["id"].asString() + "/complete",
                       Json::object())
                 .status);
    body.set("owner_id", stranger.userId());
    Reply foreign = owner.post("/v1/crm/activities", body);
    CPPUNIT_ASSERT_EQUAL(404, foreign.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Owner not found."), foreign.message());
  }

  void eachChangeIsAnEvent() {
    Client alice = harness_->signUp();
    const std::string id =
        alice.post("/v1/crm/activities", call("Evented")).data()["id"].asString();
    const std::string path = "/v1/crm/activities/" + id;
    alice.patch(path, Json::object({{"title", "Renamed"}}));
    alice.post(path + "/complete", Json::object());
    alice.post(path + "/reopen", Json::object());
    alice.del(path);
    const std::vector<Json> events = harness_->events(alice);
    const std::vector<std::string> expected = {"crm.activity.created", "crm.activity.updated",
                                               "crm.activity.completed", "crm.activity.updated",
                                               "crm.activity.deleted"};
    CPPUNIT_ASSERT_EQUAL(expected.size(), events.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      CPPUNIT_ASSERT_EQUAL(expected[i], events[i]["type"].asString());
      CPPUNIT_ASSERT_EQUAL(std::string("activities"), events[i]["module"].asString());
      CPPUNIT_ASSERT_EQUAL(id, events[i]["data"]["id"].asString());
    }
    CPPUNIT_ASSERT_EQUAL(std::string("Renamed"), events[1]["data"]["title"].asString());
  }

 private:
  std::unique_ptr<Harness> harness_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(ActivitiesModuleTest);
