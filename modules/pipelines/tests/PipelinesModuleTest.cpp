// module.pipelines: the pipelines module through the in-process harness
// (docs/modules/pipelines.md): a pipeline with its stages, the stage
// routes, the default rule, tenancy, and the role rule (only owners and
// admins change pipelines; every member reads them). The module emits no
// events of its own.
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

Json salesPipeline() {
  return Json::object(
      {{"name", "Sales"},
       {"stages", Json::Array{Json::object({{"name", "Lead"}, {"probability", 10}}),
                              Json::object({{"name", "Won"}, {"probability", 100}})}}});
}

}  // namespace

class PipelinesModuleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(PipelinesModuleTest);
  CPPUNIT_TEST(pipelineWithStages);
  CPPUNIT_TEST(stagesHaveTheirOwnRoutes);
  CPPUNIT_TEST(firstPipelineIsTheDefault);
  CPPUNIT_TEST(stageErrorsNameTheirPlace);
  CPPUNIT_TEST(onlyOwnersAndAdminsChangePipelines);
  CPPUNIT_TEST(anotherCompanysPipelineIsNotFound);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    harness_ = std::make_unique<Harness>(HarnessOptions{.modules = {"pipelines"}});
  }
  void tearDown() override { harness_.reset(); }

  void pipelineWithStages() {
    Client alice = harness_->signUp();
    Reply made = alice.post("/v1/crm/pipelines", salesPipeline());
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Pipeline created."), made.message());
    const Json& stages = made.data()["stages"];
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), stages.size());
    CPPUNIT_ASSERT_EQUAL(std::string("Lead"), stages.asArray()[0]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), stages.asArray()[0]["order"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(100), stages.asArray()[1]["probability"].asInt());
    // Without the deals module every counter is 0.
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), made.data()["deals_count"].asInt());
    const std::string path = "/v1/crm/pipelines/" + made.data()["id"].asString();
    CPPUNIT_ASSERT(alice.get(path).data() == made.data());
    Reply renamed = alice.patch(path, Json::object({{"name", "Renewals"}}));
    CPPUNIT_ASSERT_EQUAL(200, renamed.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Renewals"), renamed.data()["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), alice.get("/v1/crm/pipelines").data().size());
    CPPUNIT_ASSERT_EQUAL(200, alice.del(path).status);
    Reply gone = alice.get(path);
    CPPUNIT_ASSERT_EQUAL(404, gone.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Pipeline not found."), gone.message());
  }

  void stagesHaveTheirOwnRoutes() {
    Client alice = harness_->signUp();
    const std::string path =
        "/v1/crm/pipelines/" +
        alice.post("/v1/crm/pipelines", salesPipeline()).data()["id"].asString();
    Reply added = alice.post(path + "/stages", Json::object({{"name", "Proposal"}, {"order", 2}}));
    CPPUNIT_ASSERT_EQUAL(201, added.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Stage created."), added.message());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), added.data()["order"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), added.data()["probability"].asInt());
    Reply stages = alice.get(path + "/stages");
    CPPUNIT_ASSERT_EQUAL(200, stages.status);
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), stages.data().size());
    CPPUNIT_ASSERT_EQUAL(std::string("Proposal"), stages.data().asArray()[1]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Won"), stages.data().asArray()[2]["name"].asString());
    const std::string stagePath = path + "/stages/" + added.data()["id"].asString();
    CPPUNIT_ASSERT_EQUAL(200, alice.del(stagePath).status);
    Reply gone = alice.get(stagePath);
    CPPUNIT_ASSERT_EQUAL(404, gone.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Stage not found."), gone.message());
  }

  void firstPipelineIsTheDefault() {
    Client alice = harness_->signUp();
    Reply first =
        alice.post("/v1/crm/pipelines", Json::object({{"name", "Sales"}, {"is_default", false}}));
    CPPUNIT_ASSERT_EQUAL(true, first.data()["is_default"].asBool());
    Reply second = alice.post("/v1/crm/pipelines", Json::object({{"name", "Renewals"}}));
    CPPUNIT_ASSERT_EQUAL(false, second.data()["is_default"].asBool());
  }

  void stageErrorsNameTheirPlace() {
    Client alice = harness_->signUp();
    Reply refused =
        alice.post("/v1/crm/pipelines",
                   Json::object({{"name", "Sales"},
                                 {"stages", Json::Array{Json::object({{"probability", 101}})}}}));
    CPPUNIT_ASSERT_EQUAL(422, refused.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The stages.0.name field is required."),
                         refused.fieldErrors("stages.0.name").at(0));
    CPPUNIT_ASSERT_EQUAL(std::string("The stages.0.probability may not be greater than 100."),
                         refused.fieldErrors("stages.0.probability").at(0));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), alice.get("/v1/crm/pipelines").meta()["total"].asInt());
  }

  void onlyOwnersAndAdminsChangePipelines() {
    Client owner = harness_->signUp();
    Client admin = harness_->join(owner, Role::Admin);
    Client member = harness_->join(owner, Role::Member);
    Reply refused = member.post("/v1/crm/pipelines", salesPipeline());
    CPPUNIT_ASSERT_EQUAL(403, refused.status);
    CPPUNIT_ASSERT_EQUAL(std::string("No permission."), refused.message());
    Reply made = admin.post("/v1/crm/pipelines", salesPipeline());
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    const std::string path = "/v1/crm/pipelines/" + made.data()["id"].asString();
    // Members read pipelines (deals need them) but change nothing.
    CPPUNIT_ASSERT_EQUAL(200, member.get(path).status);
    CPPUNIT_ASSERT_EQUAL(200, member.get(path + "/stages").status);
    CPPUNIT_ASSERT_EQUAL(403, member.patch(path, Json::object({{"name", "Mine"}})).status);
    CPPUNIT_ASSERT_EQUAL(403, member.post(path + "/stages", Json::object({{"name", "X"}})).status);
    CPPUNIT_ASSERT_EQUAL(403, member.del(path).status);
    CPPUNIT_ASSERT_EQUAL(200, owner.del(path).status);
  }

  void anotherCompanysPipelineIsNotFound() {
    Client alice = harness_->signUp();
    Client mallory = harness_->signUp();
    const std::string path =
        "/v1/crm/pipelines/" +
        alice.post("/v1/crm/pipelines", salesPipeline()).data()["id"].asString();
    CPPUNIT_ASSERT_EQUAL(404, mallory.get(path).status);
    CPPUNIT_ASSERT_EQUAL(404, mallory.get(path + "/stages").status);
    CPPUNIT_ASSERT_EQUAL(404, mallory.del(path).status);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), mallory.get("/v1/crm/pipelines").data().size());
    CPPUNIT_ASSERT_EQUAL(200, alice.get(path).status);
  }

 private:
  std::unique_ptr<Harness> harness_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(PipelinesModuleTest);
