// module.companies: the companies module (CRM companies, the tenant's
// customers) through the in-process harness (docs/modules/companies.md):
// its routes' main paths, tenancy of records and of the document rule, a
// member's rights, and its events.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <string>

#include "rapport/testing.h"

namespace {

using rapport::Json;
using rapport::Role;
using rapport::testing::Client;
using rapport::testing::Harness;
using rapport::testing::Reply;

}  // namespace

class CompaniesModuleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CompaniesModuleTest);
  CPPUNIT_TEST(createReadUpdateDelete);
  CPPUNIT_TEST(listSearchesAndSorts);
  CPPUNIT_TEST(anotherCompanysRecordIsNotFound);
  CPPUNIT_TEST(documentIsUniquePerTenant);
  CPPUNIT_TEST(anyMemberManagesCompanies);
  CPPUNIT_TEST(eachChangeIsAnEvent);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    harness_ =
        std::make_unique<Harness>(rapport::testing::HarnessOptions{.modules = {"companies"}});
  }
  void tearDown() override { harness_.reset(); }

  void createReadUpdateDelete() {
    Client alice = harness_->signUp();
    Reply made = alice.post("/v1/crm/companies",
                            Json::object({{"name", " Acme "}, {"annual_revenue", 150000}}));
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Company created."), made.message());
    CPPUNIT_ASSERT_EQUAL(std::string("Acme"), made.data()["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(150000), made.data()["annual_revenue"].asInt());
    const std::string path = "/v1/crm/companies/" + made.data()["id"].asString();
    CPPUNIT_ASSERT(alice.get(path).data() == made.data());

    Reply updated = alice.patch(path, Json::object({{"industry", "Anvils"}}));
    CPPUNIT_ASSERT_EQUAL(200, updated.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Anvils"), updated.data()["industry"].asString());
    Reply refused = alice.patch(path, Json::object({{"annual_revenue", -1}}));
    CPPUNIT_ASSERT_EQUAL(422, refused.status);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), refused.fieldErrors("annual_revenue").size());

    CPPUNIT_ASSERT_EQUAL(200, alice.del(path).status);
    Reply gone = alice.get(path);
    CPPUNIT_ASSERT_EQUAL(404, gone.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Company not found."), gone.message());
  }

  void listSearchesAndSorts() {
    Client alice = harness_->signUp();
    for (const char* name : {"Initech", "Acme", "Globex"}) {
      CPPUNIT_ASSERT_EQUAL(201,
                           alice.post("/v1/crm/companies", Json::object({{"name", name}})).status);
    }
    Reply sorted = alice.get("/v1/crm/companies?sort=name");
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), sorted.data().size());
    CPPUNIT_ASSERT_EQUAL(std::string("Acme"), sorted.data().asArray()[0]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Initech"), sorted.data().asArray()[2]["name"].asString());
    Reply found = alice.get("/v1/crm/companies?search=LOBE");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), found.data().size());
    CPPUNIT_ASSERT_EQUAL(std::string("Globex"), found.data().asArray()[0]["name"].asString());
    Reply badSort = alice.get("/v1/crm/companies?sort=shoe_size");
    CPPUNIT_ASSERT_EQUAL(422, badSort.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The sort field is not supported."),
                         badSort.fieldErrors("sort").at(0));
  }

  void anotherCompanysRecordIsNotFound() {
    Client alice = harness_->signUp();
    Client mallory = harness_->signUp();
    Reply made = alice.post("/v1/crm/companies", Json::object({{"name", "Acme"}}));
    const std::string path = "/v1/crm/companies/" + made.data()["id"].asString();
    CPPUNIT_ASSERT_EQUAL(404, mallory.get(path).status);
    CPPUNIT_ASSERT_EQUAL(404, mallory.patch(path, Json::object({{"name", "Evil"}})).status);
    CPPUNIT_ASSERT_EQUAL(404, mallory.del(path).status);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), mallory.get("/v1/crm/companies").meta()["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("Acme"), alice.get(path).data()["name"].asString());
  }

  void documentIsUniquePerTenant() {
    Client alice = harness_->signUp();
    Client bob = harness_->signUp();
    const Json body = Json::object({{"name", "Acme"}, {"document", "12.345.678/0001-90"}});
    CPPUNIT_ASSERT_EQUAL(201, alice.post("/v1/crm/companies", body).status);
    Reply duplicate = alice.post("/v1/crm/companies", body);
    CPPUNIT_ASSERT_EQUAL(409, duplicate.status);
    CPPUNIT_ASSERT_EQUAL(std::string("A company with this document already exists."),
                         duplicate.message());
    // Another tenant's customers are its own business.
    CPPUNIT_ASSERT_EQUAL(201, bob.post("/v1/crm/companies", body).status);
  }

  void anyMemberManagesCompanies() {
    Client owner = harness_->signUp();
    Client member = harness_->join(owner, Role::Member);
    Reply made = member.post("/v1/crm/companies", Json::object({{"name", "Acme"}}));
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    const std::string path = "/v1/crm/companies/" + made.data()["id"].asString();
    // One tenant: the owner sees what the member made.
    CPPUNIT_ASSERT_EQUAL(200, owner.get(path).status);
    CPPUNIT_ASSERT_EQUAL(200, member.patch(path, Json::object({{"size", "1-10"}})).status);
    CPPUNIT_ASSERT_EQUAL(200, member.del(path).status);
    CPPUNIT_ASSERT_EQUAL(401, harness_->anonymous().get("/v1/crm/companies").status);
  }

  void eachChangeIsAnEvent() {
    Client alice = harness_->signUp();
    Reply made = alice.post("/v1/crm/companies", Json::object({{"name", "Acme"}}));
    const std::string id = made.data()["id"].asString();
    alice.patch("/v1/crm/companies/" + id, Json::object({{"website", "acme.test"}}));
    alice.del("/v1/crm/companies/" + id);
    const std::vector<Json> events = harness_->events(alice);
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), events.size());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.company.created"), events[0]["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.company.updated"), events[1]["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.company.deleted"), events[2]["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("acme.test"), events[1]["data"]["website"].asString());
    for (const Json& event : events) {
      CPPUNIT_ASSERT_EQUAL(std::string("companies"), event["module"].asString());
      CPPUNIT_ASSERT_EQUAL(id, event["data"]["id"].asString());
    }
  }

 private:
  std::unique_ptr<Harness> harness_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(CompaniesModuleTest);
