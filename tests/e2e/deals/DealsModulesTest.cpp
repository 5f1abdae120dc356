// Deals in module subsets (decisions §11): deals without pipelines refuses to
// start with one error line naming pipelines; with pipelines and deals only,
// the links to contacts and companies are refused (422) and their sub-lists
// do not exist (404).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/deals/DealsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

class DealsModulesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DealsModulesTest);
  CPPUNIT_TEST(testDealsWithoutPipelinesRefusesToStart);
  CPPUNIT_TEST(testWithoutContactsAndCompanies);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testDealsWithoutPipelinesRefusesToStart() {
    for (const std::string enabled : {"deals", "deals,contacts,companies"}) {
      std::string output;
      const int code = ServerProcess::runToCompletion(crmSettings(enabled), {}, output);
      const std::string context = "modules.enabled=" + enabled + "\n" + output;
      CPPUNIT_ASSERT_MESSAGE("exit 0: " + context, code != 0);
      CPPUNIT_ASSERT_MESSAGE("killed by a signal: " + context, code < 128);
      CPPUNIT_ASSERT_MESSAGE("it listened anyway: " + context,
                             linesContaining(output, "msg=listening").empty());
      const auto errors = linesContaining(output, "level=error");
      CPPUNIT_ASSERT_EQUAL_MESSAGE("one error line: " + context, std::size_t(1), errors.size());
      CPPUNIT_ASSERT_MESSAGE(
          context,
          errors.front().find("module 'deals' requires module 'pipelines'") != std::string::npos);
    }
  }

  void testWithoutContactsAndCompanies() {
    ServerProcess server(crmSettings("pipelines,deals"));
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-subset");
    const std::string& token = account.token;
    const Pipeline pipeline = salesPipeline(client, token);
    const Json base = Json::object(
        {{"title", "Alone"}, {"pipeline_id", pipeline.id}, {"stage_id", pipeline.stages[0]}});
    const std::string noContacts =
        "The contact_id field cannot be used: the contacts module is not enabled.";
    const std::string noCompanies =
        "The company_id field cannot be used: the companies module is not enabled.";
    Json body = base;
    body.set("contact_id", "cont_x");
    CRM_ASSERT_FIELD_ERROR(client.post("/v1/crm/deals", body, bearer(token)), "contact_id",
                           noContacts);
    body = base;
    body.set("company_id", "comp_x");
    CRM_ASSERT_FIELD_ERROR(client.post("/v1/crm/deals", body, bearer(token)), "company_id",
                           noCompanies);
    // Null links are fine, and the rest works.
    body = base;
    body.set("contact_id", Json());
    body.set("company_id", Json());
    body.set("owner_id", account.userId);
    const Json deal = createDeal(client, token, body);
    CRM_ASSERT_FIELD_ERROR(
        client.patch(dealPath(deal), Json::object({{"contact_id", "cont_x"}}), bearer(token)),
        "contact_id", noContacts);
    CRM_ASSERT_FIELD_ERROR(client.get("/v1/crm/deals?contact_id=cont_x", bearer(token)),
                           "contact_id", noContacts);
    CRM_ASSERT_FIELD_ERROR(client.get("/v1/crm/deals?company_id=comp_x", bearer(token)),
                           "company_id", noCompanies);
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/contacts/cont_x/deals", bearer(token)));
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/companies/comp_x/deals", bearer(token)));
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/contacts", bearer(token)));
    E2E_ASSERT_DATA(200, client.post(dealPath(deal, "/win"), Json::object(), bearer(token)));
    const Json list = getBody(client, token, "/v1/crm/deals");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), list["meta"]["total"].asInt());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DealsModulesTest);
