// module.deals: the deals module through the in-process harness
// (docs/modules/deals.md), with pipelines, the module it requires: a deal's
// main path through its states, the pipeline's counters, tenancy, the
// owner rule, and its events.
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

struct Pipeline {
  std::string id;
  std::string lead;      // first stage
  std::string proposal;  // second stage
};

Pipeline makePipeline(const Client& manager) {
  Reply made = manager.post(
      "/v1/crm/pipelines",
      Json::object(
          {{"name", "Sales"},
           {"stages", Json::Array{Json::object({{"name", "Lead"}, {"probability", 10}}),
                                  Json::object({{"name", "Proposal"}, {"probability", 60}})}}}));
  CPPUNIT_ASSERT_EQUAL(201, made.status);
  const Json::Array& stages = made.data()["stages"].asArray();
  return {made.data()["id"].asString(), stages[0]["id"].asString(), stages[1]["id"].asString()};
}

Json dealBody(const Pipeline& pipeline, const std::string& title) {
  return Json::object({{"title", title},
                       {"pipeline_id", pipeline.id},
                       {"stage_id", pipeline.lead},
                       {"value", 250000}});
}

}  // namespace

class DealsModuleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DealsModuleTest);
  CPPUNIT_TEST(dealMovesAndIsWon);
  CPPUNIT_TEST(pipelineCountsOpenDeals);
  CPPUNIT_TEST(dealNeedsAStageOfItsPipeline);
  CPPUNIT_TEST(anotherCompanysDealIsNotFound);
  CPPUNIT_TEST(membersWorkDealsInTheirManagersPipelines);
  CPPUNIT_TEST(eachTransitionIsAnEvent);
  CPPUNIT_TEST_SUITE_END();

 public:
  // Only deals is asked for: pipelines comes as its dependency.
  void setUp() override {
    harness_ = std::make_unique<Harness>(HarnessOptions{.modules = {"deals"}});
  }
  void tearDown() override { harness_.reset(); }

  void dealMovesAndIsWon() {
    Client alice = harness_->signUp();
    const Pipeline pipeline = makePipeline(alice);
    Reply made = alice.post("/v1/crm/deals", dealBody(pipeline, "Big one"));
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    CPPUNIT_ASSERT_EQUAL(std::string("open"), made.data()["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("USD"), made.data()["currency"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(10), made.data()["probability"].asInt());
    const std::string path = "/v1/crm/deals/" + made.data()["id"].asString();

    Reply moved = alice.patch(path + "/stage", Json::object({{"stage_id", pipeline.proposal}}));
    CPPUNIT_ASSERT_EQUAL(200, moved.status);
    CPPUNIT_ASSERT_EQUAL(pipeline.proposal, moved.data()["stage_id"].asString());
    Reply sideways = alice.patch(path, Json::object({{"stage_id", pipeline.lead}}));
    CPPUNIT_ASSERT_EQUAL(422, sideways.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Use PATCH /crm/deals/{id}/stage to move a deal."),
                         sideways.fieldErrors("stage_id").at(0));

    Reply won = alice.post(path + "/win", Json::object());
    CPPUNIT_ASSERT_EQUAL(200, won.status);
    CPPUNIT_ASSERT_EQUAL(std::string("won"), won.data()["status"].asString());
    CPPUNIT_ASSERT(!won.data()["won_at"].isNull());
    Reply again = alice.post(path + "/lose", Json::object());
    CPPUNIT_ASSERT_EQUAL(409, again.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The deal is already closed."), again.message());
    Reply closedMove = alice.patch(path + "/stage", Json::object({{"stage_id", pipeline.lead}}));
    CPPUNIT_ASSERT_EQUAL(409, closedMove.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The deal is closed."), closedMove.message());

    CPPUNIT_ASSERT_EQUAL(200, alice.del(path).status);
    Reply gone = alice.get(path);
    CPPUNIT_ASSERT_EQUAL(404, gone.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Deal not found."), gone.message());
  }

  void pipelineCountsOpenDeals() {
    Client alice = harness_->signUp();
    const Pipeline pipeline = makePipeline(alice);
    alice.post("/v1/crm/deals", dealBody(pipeline, "One"));
    Reply second = alice.post("/v1/crm/deals", dealBody(pipeline, "Two"));
    Reply counted = alice.get("/v1/crm/pipelines/" + pipeline.id);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), counted.data()["deals_count"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(500000), counted.data()["deals_value"].asInt());
    // A won deal is no longer open.
    alice.post("/v1/crm/deals/" + second.data()["id"].asString() + "/win", Json::object());
    counted = alice.get("/v1/crm/pipelines/" + pipeline.id);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), counted.data()["deals_count"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1),
                         counted.data()["stages"].asArray()[0]["deals_count"].asInt());
  }

  void dealNeedsAStageOfItsPipeline() {
    Client alice = harness_->signUp();
    const Pipeline sales = makePipeline(alice);
    const Pipeline other = makePipeline(alice);
    Json body = dealBody(sales, "Crossed");
    body.set("stage_id", other.lead);
    Reply crossed = alice.post("/v1/crm/deals", body);
    CPPUNIT_ASSERT_EQUAL(422, crossed.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The stage does not belong to the pipeline."),
                         crossed.fieldErrors("stage_id").at(0));
    body.set("pipeline_id", "pipe_missing");
    Reply missing = alice.post("/v1/crm/deals", body);
    CPPUNIT_ASSERT_EQUAL(404, missing.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Pipeline not found."), missing.message());
    Reply empty = alice.post("/v1/crm/deals", Json::object());
    CPPUNIT_ASSERT_EQUAL(422, empty.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The title field is required."),
                         empty.fieldErrors("title").at(0));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), empty.fieldErrors("pipeline_id").size());
  }

  void anotherCompanysDealIsNotFound() {
    Client alice = harness_->signUp();
    Client mallory = harness_->signUp();
    const Pipeline pipeline = makePipeline(alice);
    const std::string path =
        "/v1/crm/deals/" +
        alice.post("/v1/crm/deals", dealBody(pipeline, "Mine")).data()["id"].asString();
    CPPUNIT_ASSERT_EQUAL(404, mallory.get(path).status);
    CPPUNIT_ASSERT_EQUAL(404, mallory.post(path + "/win", Json::object()).status);
    CPPUNIT_ASSERT_EQUAL(404, mallory.del(path).status);
    // Nor may another company's pipeline hold a deal.
    Reply foreign = mallory.post("/v1/crm/deals", dealBody(pipeline, "Theirs"));
    CPPUNIT_ASSERT_EQUAL(404, foreign.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Pipeline not found."), foreign.message());
    CPPUNIT_ASSERT_EQUAL(std::string("open"), alice.get(path).data()["status"].asString());
  }

  void membersWorkDealsInTheirManagersPipelines() {
    Client owner = harness_->signUp();
    Client member = harness_->join(owner, Role::Member);
    Client stranger = harness_->signUp();
    CPPUNIT_ASSERT_EQUAL(403,
                         member.post("/v1/crm/pipelines", Json::object({{"name", "X"}})).status);
    const Pipeline pipeline = makePipeline(owner);
    Json body = dealBody(pipeline, "Member's");
    body.set("owner_id", member.userId());
    Reply made = member.post("/v1/crm/deals", body);
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    CPPUNIT_ASSERT_EQUAL(member.userId(), made.data()["owner_id"].asString());
    body.set("owner_id", stranger.userId());
    Reply foreignOwner = member.post("/v1/crm/deals", body);
    CPPUNIT_ASSERT_EQUAL(404, foreignOwner.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Owner not found."), foreignOwner.message());
  }

  void eachTransitionIsAnEvent() {
    Client alice = harness_->signUp();
    const Pipeline pipeline = makePipeline(alice);
    const std::string id =
        alice.post("/v1/crm/deals", dealBody(pipeline, "Evented")).data()["id"].asString();
    const std::string path = "/v1/crm/deals/" + id;
    alice.patch(path + "/stage", Json::object({{"stage_id", pipeline.proposal}}));
    alice.post(path + "/lose", Json::object({{"reason", "Budget"}}));
    alice.post(path + "/reopen", Json::object());
    alice.del(path);
    const std::vector<Json> events = harness_->events(alice);
    const std::vector<std::string> expected = {"crm.deal.created", "crm.deal.stage_changed",
                                               "crm.deal.lost", "crm.deal.updated",
                                               "crm.deal.deleted"};
    CPPUNIT_ASSERT_EQUAL(expected.size(), events.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      CPPUNIT_ASSERT_EQUAL(expected[i], events[i]["type"].asString());
      CPPUNIT_ASSERT_EQUAL(std::string("deals"), events[i]["module"].asString());
      CPPUNIT_ASSERT_EQUAL(id, events[i]["data"]["id"].asString());
    }
    CPPUNIT_ASSERT_EQUAL(pipeline.lead, events[1]["data"]["previous_stage_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Budget"), events[2]["data"]["lost_reason"].asString());
  }

 private:
  std::unique_ptr<Harness> harness_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(DealsModuleTest);
