// Custom fields on a third-party rapport::Resource (decisions §14, issue 23):
// examples/products, built out of tree against the installed SDK (e2e.sdk's
// fixture "products_module", served as in e2e.products), takes definitions
// under /v1/crm/products/fields (record_type "product"), values on create and
// update with the engine's validation, and filters and sorts on them, with no
// custom-field code of its own.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/custom_fields/CustomFieldsSuite.h"
#include "e2e/products/ProductsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::custom_fields;
using rapport::e2e::products::kProducts;
using rapport::e2e::products::productsServer;

class CfProductsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CfProductsTest);
  CPPUNIT_TEST(testDefinitionsOnProducts);
  CPPUNIT_TEST(testValuesFilterAndSort);
  CPPUNIT_TEST(testUniqueAndBatchUpsert);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    client_ = std::make_unique<HttpClient>(productsServer().port());
    owner_ = registerUser(*client_, "cf-products");
  }
  void tearDown() override { client_.reset(); }

  Json product(const std::string& name, Json values) {
    return E2E_ASSERT_DATA(
        201,
        client_->post(kProducts,
                      withCustom(Json::object({{"name", name}, {"price", 100}}), std::move(values)),
                      bearer(owner_.token)));
  }

  void testDefinitionsOnProducts() {
    const Json color = defineField(
        *client_, owner_.token, kProducts,
        fieldBody("color", "select", Json::object({{"options", optionsOf({"red", "blue"})}})));
    CPPUNIT_ASSERT_EQUAL(std::string("product"), color["record_type"].asString());
    CPPUNIT_ASSERT(pluck(listFields(*client_, owner_.token, kProducts), "key") ==
                   (std::vector<std::string>{"color"}));
    // Built-in names of products are refused as keys; a contact's key is not one.
    for (const char* key : {"sku", "price", "active"}) {
      CF_ASSERT_ERROR_KEY(
          client_->post(fieldsPath(kProducts), fieldBody(key, "text"), bearer(owner_.token)),
          "key");
    }
    E2E_ASSERT_DATA(200, client_->patch(fieldsPath(kProducts, "color"),
                                        Json::object({{"label", "Colour"}}), bearer(owner_.token)));
    E2E_ASSERT_DATA(200, client_->del(fieldsPath(kProducts, "color"), bearer(owner_.token)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), listFields(*client_, owner_.token, kProducts).size());
  }

  void testValuesFilterAndSort() {
    defineField(
        *client_, owner_.token, kProducts,
        fieldBody("color", "select", Json::object({{"options", optionsOf({"red", "blue"})}})));
    defineField(*client_, owner_.token, kProducts, fieldBody("weight_g", "number"));
    const Json red = product("Red chair", Json::object({{"color", "red"}, {"weight_g", 1200}}));
    CF_ASSERT_CUSTOM_FIELDS(R"({"color":"red","weight_g":1200})", red);
    const Json blue = product("Blue chair", Json::object({{"color", "blue"}, {"weight_g", 800}}));
    const Json plain = product("Plain", Json::object());
    CF_ASSERT_CUSTOM_FIELDS(R"({"color":null,"weight_g":null})", plain);
    CF_ASSERT_CUSTOM_FIELDS(R"({"color":"red","weight_g":1200})",
                            readRecord(*client_, owner_.token, kProducts, red["id"].asString()));
    CF_ASSERT_CUSTOM_ERROR(client_->post(kProducts,
                                         withCustom(Json::object({{"name", "Green"}}),
                                                    Json::object({{"color", "green"}})),
                                         bearer(owner_.token)),
                           "color");
    CF_ASSERT_CUSTOM_ERROR(
        client_->post(kProducts,
                      withCustom(Json::object({{"name", "Unknown"}}), Json::object({{"nope", 1}})),
                      bearer(owner_.token)),
        "nope");
    const Json patched = E2E_ASSERT_DATA(
        200, client_->patch(kProducts + "/" + plain["id"].asString(),
                            Json::object({{"custom_fields", Json::object({{"weight_g", 500}})}}),
                            bearer(owner_.token)));
    CF_ASSERT_CUSTOM_FIELDS(R"({"color":null,"weight_g":500})", patched);

    const auto matching = [&](const std::string& filter) {
      return rapport::e2e::query::matching(*client_, owner_.token, kProducts, Json::parse(filter));
    };
    CPPUNIT_ASSERT(matching(R"({"custom_fields.color":"red"})") == (Ids{red["id"].asString()}));
    CPPUNIT_ASSERT(matching(R"({"custom_fields.color":{"ne":"red"}})") ==
                   (Ids{blue["id"].asString(), plain["id"].asString()}));
    CPPUNIT_ASSERT(matching(R"({"custom_fields.weight_g":{"gte":800},"price":100})") ==
                   (Ids{red["id"].asString(), blue["id"].asString()}));
    CPPUNIT_ASSERT(rapport::e2e::query::listed(*client_, owner_.token, kProducts,
                                               "sort=custom_fields.weight_g") ==
                   (Ids{plain["id"].asString(), blue["id"].asString(), red["id"].asString()}));
    CF_ASSERT_ERROR_KEY(
        client_->get(kProducts + "?" + filterParam(Json::parse(R"({"custom_fields.nope":1})")),
                     bearer(owner_.token)),
        "filter.custom_fields.nope");
  }

  void testUniqueAndBatchUpsert() {
    defineField(*client_, owner_.token, kProducts,
                fieldBody("supplier_ref", "text", Json::object({{"unique", true}})));
    const Json first = product("First", Json::object({{"supplier_ref", "S-1"}}));
    CRM_ASSERT_ERROR_MESSAGE(409, "A product with this supplier_ref already exists.",
                             client_->post(kProducts,
                                           withCustom(Json::object({{"name", "Second"}}),
                                                      Json::object({{"supplier_ref", "S-1"}})),
                                           bearer(owner_.token)));
    const Json item = Json::object({{"action", "upsert"},
                                    {"data", withCustom(Json::object({{"name", "First renamed"}}),
                                                        Json::object({{"supplier_ref", "S-1"}}))}});
    const Json results =
        E2E_ASSERT_DATA(200, client_->post(kProducts + "/batch",
                                           Json::object({{"match_on", "custom_fields.supplier_ref"},
                                                         {"items", Json::Array{item}}}),
                                           bearer(owner_.token)));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(results.dump(), std::int64_t(200),
                                 results.asArray().at(0)["status"].asInt());
    CPPUNIT_ASSERT_EQUAL(first["id"].asString(), results.asArray().at(0)["data"]["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("First renamed"),
                         results.asArray().at(0)["data"]["name"].asString());
  }

 private:
  std::unique_ptr<HttpClient> client_;
  Account owner_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(CfProductsTest);
