// The other first-party collections that opted in: CRM companies (upserts
// by document), deals and activities (no upsert: an upsert item is refused
// with the whole call), each as if its items were single requests.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/batch/BatchSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::batch;

namespace {

const std::string kCompanies = "/v1/crm/companies";
const std::string kDeals = "/v1/crm/deals";
const std::string kActivities = "/v1/crm/activities";

}  // namespace

class BatchCollectionsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(BatchCollectionsTest);
  CPPUNIT_TEST(testCompaniesUpsertByDocument);
  CPPUNIT_TEST(testDealsCreateAndUpdate);
  CPPUNIT_TEST(testActivitiesCreateAndUpdate);
  CPPUNIT_TEST(testUpsertWithoutKeyIsRefusedWhole);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCompaniesUpsertByDocument() {
    HttpClient client(batchServer().port());
    const Account owner = registerUser(client, "batch-companies");
    const Json known = createCrmCompany(
        client, owner.token, Json::object({{"name", "Known"}, {"document", "11.222.333/0001-44"}}));
    const Json::Array results = BATCH_ASSERT_RESULTS(
        postBatch(client, owner.token, kCompanies,
                  {upsertItem(Json::object({{"name", "Known Renamed"},
                                            // Trimmed as POST stores it.
                                            {"document", "  11.222.333/0001-44 "}})),
                   upsertItem(Json::object({{"name", "New Co"}, {"document", "99"}})),
                   upsertItem(Json::object({{"name", "Blank"}, {"document", "  "}})),
                   createItem(Json::object({{"name", "Twin"}, {"document", "99"}}))}),
        4);
    CPPUNIT_ASSERT(statusesOf(results) == std::vector<std::int64_t>({200, 201, 422, 409}));
    CPPUNIT_ASSERT_EQUAL(known["id"].asString(), results[0]["data"]["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Known Renamed"), results[0]["data"]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("99"), results[1]["data"]["document"].asString());
    CPPUNIT_ASSERT(results[2]["errors"] ==
                   Json::object({{"document", Json::Array{"The document field is required."}}}));
    CPPUNIT_ASSERT_EQUAL(std::string("A company with this document already exists."),
                         results[3]["message"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, totalOf(client, owner.token, kCompanies));
    CPPUNIT_ASSERT_EQUAL(std::size_t(2),
                         eventCount(batchServer(), owner.companyId, "crm.company.created"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1),
                         eventCount(batchServer(), owner.companyId, "crm.company.updated"));
  }

  void testDealsCreateAndUpdate() {
    HttpClient client(batchServer().port());
    const Account owner = registerUser(client, "batch-deals");
    const Json existing = createDeal(client, owner.token, "Existing");
    const Json stage = existing["stage_id"];
    const Json pipeline = existing["pipeline_id"];
    const Json::Array results = BATCH_ASSERT_RESULTS(
        postBatch(client, owner.token, kDeals,
                  {createItem(Json::object({{"title", "Batched"},
                                            {"pipeline_id", pipeline},
                                            {"stage_id", stage},
                                            {"value", 5000}})),
                   updateItem(existing["id"].asString(), Json::object({{"value", 700}})),
                   createItem(Json::object({{"title", "No pipeline"}})),
                   updateItem("deal_doesnotexist", Json::object({{"value", 1}}))}),
        4);
    CPPUNIT_ASSERT(statusesOf(results) == std::vector<std::int64_t>({201, 200, 422, 404}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{5000}, results[0]["data"]["value"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{700}, results[1]["data"]["value"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("Deal not found."), results[3]["message"].asString());
    const Json read = E2E_ASSERT_DATA(
        200, client.get(kDeals + "/" + existing["id"].asString(), bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{700}, read["value"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, totalOf(client, owner.token, kDeals));
    CPPUNIT_ASSERT_EQUAL(std::size_t(2),
                         eventCount(batchServer(), owner.companyId, "crm.deal.created"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1),
                         eventCount(batchServer(), owner.companyId, "crm.deal.updated"));
  }

  void testActivitiesCreateAndUpdate() {
    HttpClient client(batchServer().port());
    const Account owner = registerUser(client, "batch-activities");
    const Json call = createCall(client, owner.token, "First call");
    const Json::Array results = BATCH_ASSERT_RESULTS(
        postBatch(client, owner.token, kActivities,
                  {createItem(Json::object({{"type", "task"}, {"title", "Send the offer"}})),
                   updateItem(call["id"].asString(), Json::object({{"title", "Second call"}})),
                   createItem(Json::object({{"type", "party"}, {"title", "Nope"}}))}),
        3);
    CPPUNIT_ASSERT(statusesOf(results) == std::vector<std::int64_t>({201, 200, 422}));
    CPPUNIT_ASSERT_EQUAL(std::string("task"), results[0]["data"]["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Second call"), results[1]["data"]["title"].asString());
    CPPUNIT_ASSERT(results[2]["errors"].find("type") != nullptr);
    CPPUNIT_ASSERT_EQUAL(
        std::string("Second call"),
        readActivity(client, owner.token, call["id"].asString())["title"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2),
                         eventCount(batchServer(), owner.companyId, "crm.activity.created"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1),
                         eventCount(batchServer(), owner.companyId, "crm.activity.updated"));
  }

  void testUpsertWithoutKeyIsRefusedWhole() {
    HttpClient client(batchServer().port());
    const Account owner = registerUser(client, "batch-no-upsert");
    for (const std::string& collection : {kDeals, kActivities}) {
      const Json refused = E2E_ASSERT_ERROR(
          422, postBatch(client, owner.token, collection,
                         {createItem(Json::object({{"type", "call"}, {"title", "Valid"}})),
                          upsertItem(Json::object({{"title", "Upserted"}}))}));
      // Deals and activities have no unique field: an upsert names a unique
      // custom field with match_on (decisions §14), or the call is refused.
      const std::string message =
          "The items.1.match_on field is required: this collection upserts by a unique custom "
          "field (custom_fields.<key>).";
      CPPUNIT_ASSERT_MESSAGE(
          refused.dump(),
          refused == Json::object(
                         {{"message", message},
                          {"errors", Json::object({{"items.1.match_on", Json::Array{message}}})}}));
    }
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, totalOf(client, owner.token, kActivities));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, totalOf(client, owner.token, kDeals));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(BatchCollectionsTest);
