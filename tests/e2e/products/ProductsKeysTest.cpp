// API keys on a third-party module's routes (decisions §15): examples/products
// declares its scope name through the SDK alone, so with products loaded
// products:read and products:write are known scopes; products:read opens
// GET, the search and the fields' GET and answers 403 "This API key lacks
// the scope products:write." on every write; products:write opens every
// route; a key of another resource gets 403 naming products:read or
// products:write; `*` opens them all. Without the module, products:read is
// an unknown scope (e2e.api_keys, KeysLifecycleTest).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/products/ProductsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::products;

namespace {

// POST /v1/api-keys {name, scopes} as `token`, asserting 201: the key's data.
Json createKey(HttpClient& client, const std::string& token,
               std::initializer_list<const char*> scopes) {
  Json list = Json::array();
  for (const char* scope : scopes) list.push(Json(scope));
  return E2E_ASSERT_DATA(
      201, client.post("/v1/api-keys", Json::object({{"name", "Shop sync"}, {"scopes", list}}),
                       bearer(token)));
}

std::string lacks(const std::string& scope) {
  return "This API key lacks the scope " + scope + ".";
}

}  // namespace

class ProductsKeysTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ProductsKeysTest);
  CPPUNIT_TEST(testProductScopesAreKnown);
  CPPUNIT_TEST(testReadKeyReadsButCannotWrite);
  CPPUNIT_TEST(testWriteKeyDoesEverything);
  CPPUNIT_TEST(testOtherResourcesKeyIsRefused);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testProductScopesAreKnown() {
    HttpClient client(productsServer().port());
    const Account owner = registerUser(client, "products-keys-known");
    const Json key = createKey(client, owner.token, {"products:read", "products:write"});
    CPPUNIT_ASSERT_EQUAL(std::string(R"(["products:read","products:write"])"),
                         key["scopes"].dump());
    const HttpResult unknown = client.post(
        "/v1/api-keys",
        Json::object({{"name", "Bad"}, {"scopes", Json::Array{Json("products:delete")}}}),
        bearer(owner.token));
    CRM_ASSERT_FIELD_ERROR(unknown, "scopes", "");
  }

  void testReadKeyReadsButCannotWrite() {
    HttpClient client(productsServer().port());
    const Account owner = registerUser(client, "products-keys-read");
    const Json product = createProduct(client, owner.token, Json::object({{"name", "Lamp"}}));
    const std::string key = createKey(client, owner.token, {"products:read"})["key"].asString();

    E2E_ASSERT_DATA(200, client.get(kProducts, bearer(key)));
    CPPUNIT_ASSERT_EQUAL(
        product["id"].asString(),
        E2E_ASSERT_DATA(200, client.get(productPath(product), bearer(key)))["id"].asString());
    E2E_ASSERT_DATA(200, client.post(kProducts + "/search", Json::object(), bearer(key)));
    E2E_ASSERT_DATA(200, client.get(kProducts + "/fields", bearer(key)));

    const std::string writeRefused = lacks("products:write");
    CRM_ASSERT_ERROR_MESSAGE(403, writeRefused,
                             client.post(kProducts, Json::object({{"name", "Desk"}}), bearer(key)));
    CRM_ASSERT_ERROR_MESSAGE(
        403, writeRefused,
        client.patch(productPath(product), Json::object({{"name", "Big Lamp"}}), bearer(key)));
    CRM_ASSERT_ERROR_MESSAGE(403, writeRefused, client.del(productPath(product), bearer(key)));
    CRM_ASSERT_ERROR_MESSAGE(
        403, writeRefused,
        client.post(kProducts + "/batch",
                    Json::object({{"items", Json::Array{Json::object(
                                                {{"action", "create"},
                                                 {"data", Json::object({{"name", "Desk"}})}})}}}),
                    bearer(key)));
    // Nothing was written.
    const Json list = E2E_ASSERT_DATA(200, client.get(kProducts, bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, list.size());
    CPPUNIT_ASSERT_EQUAL(std::string("Lamp"), list.asArray()[0]["name"].asString());
  }

  void testWriteKeyDoesEverything() {
    HttpClient client(productsServer().port());
    const Account owner = registerUser(client, "products-keys-write");
    for (const char* scope : {"products:write", "*"}) {
      const std::string key = createKey(client, owner.token, {scope})["key"].asString();
      const Json product = E2E_ASSERT_DATA(
          201, client.post(kProducts, Json::object({{"name", "Desk"}}), bearer(key)));
      E2E_ASSERT_DATA(200, client.get(kProducts, bearer(key)));
      E2E_ASSERT_DATA(200, client.get(productPath(product), bearer(key)));
      E2E_ASSERT_DATA(
          200, client.patch(productPath(product), Json::object({{"price", 1500}}), bearer(key)));
      E2E_ASSERT_DATA(200, client.del(productPath(product), bearer(key)));
      E2E_ASSERT_ERROR(404, client.get(productPath(product), bearer(owner.token)));
    }
  }

  void testOtherResourcesKeyIsRefused() {
    HttpClient client(productsServer().port());
    const Account owner = registerUser(client, "products-keys-other");
    const Json product = createProduct(client, owner.token, Json::object({{"name", "Lamp"}}));
    const std::string key = createKey(client, owner.token, {"contacts:write"})["key"].asString();
    CRM_ASSERT_ERROR_MESSAGE(403, lacks("products:read"), client.get(kProducts, bearer(key)));
    CRM_ASSERT_ERROR_MESSAGE(403, lacks("products:read"),
                             client.get(productPath(product), bearer(key)));
    CRM_ASSERT_ERROR_MESSAGE(403, lacks("products:write"),
                             client.post(kProducts, Json::object({{"name", "Desk"}}), bearer(key)));
    // The key's own resource still works.
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(key)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProductsKeysTest);
