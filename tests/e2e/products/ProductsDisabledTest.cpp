// examples/products disabled (decisions §11): its file still in modules.dir,
// its table and rows still in the database, but not in modules.enabled. Its
// routes answer the host's 404 (as any unknown path, token or not), and its
// event types leave GET /v1/webhooks/events (a webhook cannot subscribe to
// them), while the first-party modules keep theirs. The API document
// (GET /v1/openapi.json) lists its routes and its Product schema only while
// it is enabled.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/products/ProductsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::products;

class ProductsDisabledTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ProductsDisabledTest);
  CPPUNIT_TEST(testDisabledAfterUseAnswers404AndLeavesTheCatalogue);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testDisabledAfterUseAnswers404AndLeavesTheCatalogue() {
    // Enabled first: a product exists, its types are listed.
    ServerProcess enabled(productsSettings(kWithProducts));
    Account account;
    Json product;
    {
      HttpClient client(enabled.port());
      account = registerUser(client, "products-disabled");
      product = createProduct(client, account.token, Json::object({{"name", "Lamp"}}));
      CPPUNIT_ASSERT(catalogueOf(client, account.token, "products") == kProductEvents);
      const Json document = E2E_ASSERT_JSON(client.get("/v1/openapi.json"));
      const Json& create = document["paths"]["/v1/crm/products"]["post"];
      CPPUNIT_ASSERT_EQUAL(std::string("products"), create["x-rapport-module"].asString());
      CPPUNIT_ASSERT(create["responses"].contains("201"));
      CPPUNIT_ASSERT(document["paths"]["/v1/crm/products/{id}"].contains("delete"));
      CPPUNIT_ASSERT(document["components"]["schemas"].contains("Product"));
    }
    CPPUNIT_ASSERT_EQUAL(0, enabled.stop());

    // The same database and folder, products left out of modules.enabled.
    ServerProcess disabled(productsSettings(kFirstParty, {{"database.url", enabled.databaseUrl()}}),
                           {}, {}, enabled.workDir());
    HttpClient client(disabled.port());
    const HttpResult unknown = client.get("/v1/nope", bearer(account.token));
    const Json expected = E2E_ASSERT_ERROR(404, unknown);
    const std::vector<HttpResult> answers = {
        client.get(kProducts, bearer(account.token)),
        client.get(productPath(product), bearer(account.token)),
        client.post(kProducts, Json::object({{"name", "Lamp"}}), bearer(account.token)),
        client.patch(productPath(product), Json::object({{"name", "x"}}), bearer(account.token)),
        client.del(productPath(product), bearer(account.token)),
        client.get(kProducts),  // no token: still 404, not 401
    };
    for (const HttpResult& result : answers) {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(result), expected.dump(),
                                   E2E_ASSERT_ERROR(404, result).dump());
      E2E_ASSERT_COMMON_HEADERS(result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), !result.hasHeader("Allow"));
    }

    const Json document = E2E_ASSERT_JSON(client.get("/v1/openapi.json"));
    CPPUNIT_ASSERT(!document["paths"].contains("/v1/crm/products"));
    CPPUNIT_ASSERT(!document["components"]["schemas"].contains("Product"));
    CPPUNIT_ASSERT(document["paths"].contains("/v1/crm/contacts"));

    // Its types are gone; the first-party ones stay.
    const Json list =
        E2E_ASSERT_DATA(200, client.get("/v1/webhooks/events", bearer(account.token)));
    for (const Json& item : list.asArray()) {
      CPPUNIT_ASSERT_MESSAGE(item.dump(), item["module"].asString() != "products");
      CPPUNIT_ASSERT_MESSAGE(item.dump(), item["event"].asString().rfind("crm.product.", 0) != 0);
    }
    CPPUNIT_ASSERT(contains(catalogueOf(client, account.token, "contacts"), "crm.contact.created"));
    CRM_ASSERT_FIELD_ERROR(
        client.post("/v1/webhooks",
                    Json::object({{"url", "https://localhost:9/x"},
                                  {"events", eventsList({"crm.product.created"})}}),
                    bearer(account.token)),
        "events",
        "Unknown event type: crm.product.created. GET /v1/webhooks/events lists the known ones.");

    // The data is still there: enabling it again brings the product back.
    CPPUNIT_ASSERT_EQUAL(0, disabled.stop());
    ServerProcess again(productsSettings(kWithProducts, {{"database.url", enabled.databaseUrl()}}),
                        {}, {}, enabled.workDir());
    HttpClient back(again.port());
    const Json read = E2E_ASSERT_DATA(200, back.get(productPath(product), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(product.dump(), read.dump());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProductsDisabledTest);
