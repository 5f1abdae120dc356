// examples/products' batch route, which rapport::Resource registers with no
// line of the module's own (docs/api-choices.md "Batch writes"): creates,
// updates and upserts by the unique field (sku), each item as a single
// request would be (its record, its event, its error), and the POST
// route's roles (owner and admin).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/products/ProductsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::products;

namespace {

std::size_t productEventCount(const Account& account, const std::string& type) {
  return queryDatabase(productsServer().databaseUrl(),
                       "SELECT id FROM events WHERE company_id = " + sqlQuote(account.companyId) +
                           " AND type = " + sqlQuote(type))
      .size();
}

Json item(const std::string& action, Json data, const std::string& id = "") {
  Json out = Json::object({{"action", action}, {"data", std::move(data)}});
  if (!id.empty()) out.set("id", id);
  return out;
}

Json batchBody(Json::Array items) {
  return Json::object({{"items", Json(std::move(items))}});
}

}  // namespace

class ProductsBatchTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ProductsBatchTest);
  CPPUNIT_TEST(testBatchUpsertsBySku);
  CPPUNIT_TEST(testMembersCannotBatch);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testBatchUpsertsBySku() {
    HttpClient client(productsServer().port());
    const Account owner = registerUser(client, "products-batch");
    const Json lamp =
        createProduct(client, owner.token, Json::object({{"name", "Lamp"}, {"sku", "LAMP-1"}}));
    const Json chair = createProduct(client, owner.token, Json::object({{"name", "Chair"}}));
    const Json data = E2E_ASSERT_DATA(
        200,
        client.post(kProducts + "/batch",
                    batchBody({
                        item("upsert", Json::object({{"name", "Lamp v2"}, {"sku", "LAMP-1"}})),
                        item("upsert", Json::object({{"name", "Desk"}, {"sku", "DESK-1"}})),
                        item("create", Json::object({{"name", "Twin"}, {"sku", "DESK-1"}})),
                        item("update", Json::object({{"price", 1999}}), chair["id"].asString()),
                        item("upsert", Json::object({{"name", "No sku"}})),
                    }),
                    bearer(owner.token)));
    const Json::Array& results = data.asArray();
    CPPUNIT_ASSERT_EQUAL(std::size_t(5), results.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{200}, results[0]["status"].asInt());
    CPPUNIT_ASSERT_EQUAL(lamp["id"].asString(), results[0]["data"]["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Lamp v2"), results[0]["data"]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{201}, results[1]["status"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("DESK-1"), results[1]["data"]["sku"].asString());
    CPPUNIT_ASSERT(
        results[2] ==
        Json::object({{"status", 409}, {"message", "A product with this sku already exists."}}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{200}, results[3]["status"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1999}, results[3]["data"]["price"].asInt());
    CPPUNIT_ASSERT(
        results[4] ==
        Json::object(
            {{"status", 422},
             {"message", "The sku field is required."},
             {"errors", Json::object({{"sku", Json::Array{"The sku field is required."}}})}}));
    const Json read = E2E_ASSERT_DATA(200, client.get(productPath(lamp), bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("Lamp v2"), read["name"].asString());
    // Two POSTs and the upsert that created; the upsert that updated and the update.
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), productEventCount(owner, "crm.product.created"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), productEventCount(owner, "crm.product.updated"));
  }

  void testMembersCannotBatch() {
    HttpClient client(productsServer().port());
    const Account owner = registerUser(client, "products-batch-owner");
    const Account member = joinAs(client, owner, "member", "products-batch-member");
    E2E_ASSERT_ERROR(403, client.post(kProducts + "/batch",
                                      batchBody({item("create", Json::object({{"name", "X"}}))}),
                                      bearer(member.token)));
    E2E_ASSERT_ERROR(401, client.post(kProducts + "/batch",
                                      batchBody({item("create", Json::object({{"name", "X"}}))})));
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), productEventCount(owner, "crm.product.created"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProductsBatchTest);
