// examples/products served by rapportd, as a client sees it: its routes
// inside the host's authentication (401), tenancy (another company's product
// is 404), errors (422 with field errors, 404, 405 + Allow) and envelope,
// and its CRUD, list, search and pagination (decisions §11: a module built
// out of tree serves like a first-party one).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/products/ProductsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::products;

class ProductsRoutesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ProductsRoutesTest);
  CPPUNIT_TEST(testEveryRouteNeedsAToken);
  CPPUNIT_TEST(testCreateReadUpdateDelete);
  CPPUNIT_TEST(testInvalidBodyIs422WithFieldErrors);
  CPPUNIT_TEST(testUnknownProductIs404);
  CPPUNIT_TEST(testWrongMethodIs405WithAllow);
  CPPUNIT_TEST(testOtherCompanysProductIs404);
  CPPUNIT_TEST(testListSearchesAndPages);
  CPPUNIT_TEST(testMembersReadOwnersAndAdminsWrite);
  CPPUNIT_TEST(testSkuIsUniquePerCompany);
  CPPUNIT_TEST(testIdempotencyAndConditionsNeedNoModuleCode);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEveryRouteNeedsAToken() {
    HttpClient client(productsServer().port());
    E2E_ASSERT_ERROR(401, client.get(kProducts));
    E2E_ASSERT_ERROR(401, client.post(kProducts, Json::object({{"name", "Lamp"}})));
    E2E_ASSERT_ERROR(401, client.get(kProducts + "/prod_x"));
    E2E_ASSERT_ERROR(401, client.patch(kProducts + "/prod_x", Json::object({{"name", "Lamp"}})));
    E2E_ASSERT_ERROR(401, client.del(kProducts + "/prod_x"));
    E2E_ASSERT_ERROR(401, client.get(kProducts, bearer("not-a-token")));
    // A real product is not readable without a token either.
    const Account account = registerUser(client, "products-401");
    const Json product = createProduct(client, account.token, Json::object({{"name", "Lamp"}}));
    const HttpResult anonymous = client.get(productPath(product));
    E2E_ASSERT_ERROR(401, anonymous);
    E2E_ASSERT_COMMON_HEADERS(anonymous);
  }

  void testCreateReadUpdateDelete() {
    HttpClient client(productsServer().port());
    const Account account = registerUser(client, "products-crud");

    const HttpResult created = client.post(kProducts,
                                           Json::object({{"name", "  Desk Lamp  "},
                                                         {"sku", "DL-1"},
                                                         {"price", 4999},
                                                         {"currency", "EUR"},
                                                         {"active", false}}),
                                           bearer(account.token));
    const Json product = E2E_ASSERT_DATA(201, created);
    E2E_ASSERT_COMMON_HEADERS(created);
    CPPUNIT_ASSERT_EQUAL(std::string("Created"), created.reason);
    CPPUNIT_ASSERT_EQUAL(std::string("Product created."), created.json()["message"].asString());
    CPPUNIT_ASSERT_MESSAGE(product.dump(), product["id"].asString().rfind("prod_", 0) == 0);
    CPPUNIT_ASSERT_EQUAL(std::string("Desk Lamp"), product["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("DL-1"), product["sku"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(4999), product["price"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("EUR"), product["currency"].asString());
    CPPUNIT_ASSERT_EQUAL(false, product["active"].asBool());
    E2E_ASSERT_ISO_UTC(product["created_at"]);

    const HttpResult read = client.get(productPath(product), bearer(account.token));
    CPPUNIT_ASSERT_EQUAL(product.dump(), E2E_ASSERT_DATA(200, read).dump());
    E2E_ASSERT_COMMON_HEADERS(read);

    const Json updated = E2E_ASSERT_DATA(
        200, client.patch(productPath(product), Json::object({{"name", "Floor Lamp"}}),
                          bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(product["id"].asString(), updated["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Floor Lamp"), updated["name"].asString());
    CPPUNIT_ASSERT_EQUAL(
        updated.dump(),
        E2E_ASSERT_DATA(200, client.get(productPath(product), bearer(account.token))).dump());

    const Json deleted =
        E2E_ASSERT_DATA(200, client.del(productPath(product), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(Json::object({{"id", product["id"]}}).dump(), deleted.dump());
    CRM_ASSERT_ERROR_MESSAGE(404, "Product not found.",
                             client.get(productPath(product), bearer(account.token)));
    CRM_ASSERT_ERROR_MESSAGE(404, "Product not found.",
                             client.del(productPath(product), bearer(account.token)));
  }

  void testInvalidBodyIs422WithFieldErrors() {
    HttpClient client(productsServer().port());
    const Account account = registerUser(client, "products-422");
    for (const Json& body :
         {Json::object(), Json::object({{"name", "  "}}), Json::object({{"name", Json()}})}) {
      const HttpResult result = client.post(kProducts, body, bearer(account.token));
      CRM_ASSERT_FIELD_ERROR(result, "name", "The name field is required.");
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(result), std::string("Unprocessable Entity"),
                                   result.reason);
      E2E_ASSERT_COMMON_HEADERS(result);
    }
    // Every invalid field is named at once.
    const HttpResult several =
        client.post(kProducts, Json::object({{"name", 5}, {"price", -1}, {"currency", "usd"}}),
                    bearer(account.token));
    const Json error = E2E_ASSERT_ERROR(422, several);
    for (const char* field : {"name", "price", "currency"}) {
      CPPUNIT_ASSERT_MESSAGE(describe(several), error["errors"].contains(field));
    }
    CRM_ASSERT_FIELD_ERROR(several, "price", "The price must be at least 0.");
    // Malformed JSON is the host's 400, before the module sees it.
    E2E_ASSERT_ERROR(
        400, client.send("POST", kProducts, std::string("{\"name\":"), bearer(account.token)));
    // Nothing was created.
    const Json list = getBody(client, account.token, kProducts);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), list["meta"]["total"].asInt());
  }

  void testUnknownProductIs404() {
    HttpClient client(productsServer().port());
    const Account account = registerUser(client, "products-404");
    for (const std::string id : {"prod_unknown", "x"}) {
      const HttpResult result = client.get(kProducts + "/" + id, bearer(account.token));
      CRM_ASSERT_ERROR_MESSAGE(404, "Product not found.", result);
      E2E_ASSERT_COMMON_HEADERS(result);
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Product not found.",
          client.patch(kProducts + "/" + id, Json::object({{"name", "y"}}), bearer(account.token)));
      CRM_ASSERT_ERROR_MESSAGE(404, "Product not found.",
                               client.del(kProducts + "/" + id, bearer(account.token)));
    }
    E2E_ASSERT_ERROR(404, client.get(kProducts + "/prod_x/unknown", bearer(account.token)));
  }

  void testWrongMethodIs405WithAllow() {
    HttpClient client(productsServer().port());
    const Account account = registerUser(client, "products-405");
    const HttpResult collection =
        client.send("DELETE", kProducts, std::nullopt, bearer(account.token));
    E2E_ASSERT_ERROR(405, collection);
    CPPUNIT_ASSERT_EQUAL(std::string("Method Not Allowed"), collection.reason);
    E2E_ASSERT_COMMON_HEADERS(collection);
    auto allowed = splitComma(collection.header("Allow"));
    for (const char* method : {"GET", "POST"}) {
      CPPUNIT_ASSERT_MESSAGE(describe(collection), contains(allowed, method));
    }
    CPPUNIT_ASSERT_MESSAGE(describe(collection), !contains(allowed, "DELETE"));

    const HttpResult item =
        client.send("POST", kProducts + "/prod_x", std::string("{}"), bearer(account.token));
    E2E_ASSERT_ERROR(405, item);
    allowed = splitComma(item.header("Allow"));
    for (const char* method : {"GET", "PATCH", "DELETE"}) {
      CPPUNIT_ASSERT_MESSAGE(describe(item), contains(allowed, method));
    }
    CPPUNIT_ASSERT_MESSAGE(describe(item), !contains(allowed, "POST"));
  }

  void testOtherCompanysProductIs404() {
    HttpClient client(productsServer().port());
    const Account alice = registerUser(client, "products-alice");
    const Account bob = registerUser(client, "products-bob");
    const Json product = createProduct(client, alice.token, Json::object({{"name", "Secret"}}));

    const HttpResult read = client.get(productPath(product), bearer(bob.token));
    CRM_ASSERT_ERROR_MESSAGE(404, "Product not found.", read);
    // The same answer as a product that does not exist at all.
    const HttpResult none = client.get(kProducts + "/prod_unknown", bearer(bob.token));
    CPPUNIT_ASSERT_EQUAL(E2E_ASSERT_ERROR(404, none).dump(), E2E_ASSERT_ERROR(404, read).dump());
    E2E_ASSERT_ERROR(404, client.patch(productPath(product), Json::object({{"name", "Mine"}}),
                                       bearer(bob.token)));
    E2E_ASSERT_ERROR(404, client.del(productPath(product), bearer(bob.token)));
    const Json bobs = getBody(client, bob.token, kProducts);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), bobs["meta"]["total"].asInt());

    // Alice's product is untouched.
    const Json still = E2E_ASSERT_DATA(200, client.get(productPath(product), bearer(alice.token)));
    CPPUNIT_ASSERT_EQUAL(product.dump(), still.dump());
  }

  void testListSearchesAndPages() {
    HttpClient client(productsServer().port());
    const Account account = registerUser(client, "products-list");
    for (const char* name : {"Red Chair", "Blue Chair", "Green Table"}) {
      createProduct(client, account.token, Json::object({{"name", name}}));
    }
    const Json all = getBody(client, account.token, kProducts);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), all["meta"]["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), all["data"].size());

    const Json chairs = getBody(client, account.token, kProducts + "?search=chair");
    CPPUNIT_ASSERT_EQUAL_MESSAGE(chairs.dump(), std::int64_t(2), chairs["meta"]["total"].asInt());
    for (const Json& item : chairs["data"].asArray()) {
      CPPUNIT_ASSERT_MESSAGE(item.dump(),
                             item["name"].asString().find("Chair") != std::string::npos);
    }

    const Json first = getBody(client, account.token, kProducts + "?per_page=2&page=1");
    const Json second = getBody(client, account.token, kProducts + "?per_page=2&page=2");
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), first["data"].size());
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), second["data"].size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), second["meta"]["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), second["meta"]["per_page"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), second["meta"]["current_page"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), second["meta"]["last_page"].asInt());
    // The pages split the list: no product twice.
    std::vector<std::string> ids = idsOf(first);
    for (const std::string& id : idsOf(second)) {
      CPPUNIT_ASSERT_MESSAGE(id, !contains(ids, id));
      ids.push_back(id);
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), ids.size());

    // A bad page size is the first-party lists' 422.
    E2E_ASSERT_ERROR(422, client.get(kProducts + "?per_page=0", bearer(account.token)));
  }

  // The module's role rule (writes: owner and admin) through the host's
  // memberships and company tokens.
  void testMembersReadOwnersAndAdminsWrite() {
    HttpClient client(productsServer().port());
    const Account owner = registerUser(client, "products-owner");
    const Json product = createProduct(client, owner.token, Json::object({{"name", "Lamp"}}));
    const Account member = joinAs(client, owner, "member", "products-member");
    E2E_ASSERT_DATA(200, client.get(kProducts, bearer(member.token)));
    E2E_ASSERT_DATA(200, client.get(productPath(product), bearer(member.token)));
    E2E_ASSERT_ERROR(403,
                     client.post(kProducts, Json::object({{"name", "X"}}), bearer(member.token)));
    E2E_ASSERT_ERROR(403, client.patch(productPath(product), Json::object({{"name", "X"}}),
                                       bearer(member.token)));
    E2E_ASSERT_ERROR(403, client.del(productPath(product), bearer(member.token)));
    const Account admin = joinAs(client, owner, "admin", "products-admin");
    createProduct(client, admin.token, Json::object({{"name", "Admin's"}}));
    E2E_ASSERT_DATA(200, client.del(productPath(product), bearer(admin.token)));
  }

  void testSkuIsUniquePerCompany() {
    HttpClient client(productsServer().port());
    const Account alice = registerUser(client, "products-sku-a");
    const Account bob = registerUser(client, "products-sku-b");
    createProduct(client, alice.token, Json::object({{"name", "Chair"}, {"sku", "CH-1"}}));
    const HttpResult duplicate = client.post(
        kProducts, Json::object({{"name", "Other"}, {"sku", "CH-1"}}), bearer(alice.token));
    CRM_ASSERT_ERROR_MESSAGE(409, "A product with this sku already exists.", duplicate);
    E2E_ASSERT_COMMON_HEADERS(duplicate);
    // Another company's catalogue is its own.
    createProduct(client, bob.token, Json::object({{"name", "Chair"}, {"sku", "CH-1"}}));
  }

  // A third-party module gets the host's Idempotency-Key and conditional
  // requests (its Resource gives its record type a path) without a line of
  // its own (docs/api-choices.md).
  void testIdempotencyAndConditionsNeedNoModuleCode() {
    HttpClient client(productsServer().port());
    const Account account = registerUser(client, "products-beyond");
    const Json body = Json::object({{"name", "Desk"}, {"sku", "DK-1"}});
    const rapport::Headers keyed = bearer(account.token, {{"Idempotency-Key", "prod-key-1"}});
    const HttpResult created = client.post(kProducts, body, keyed);
    const Json product = E2E_ASSERT_DATA(201, created);
    const HttpResult replay = client.post(kProducts, body, keyed);
    CPPUNIT_ASSERT_EQUAL(std::string("true"), replay.header("Idempotent-Replayed"));
    CPPUNIT_ASSERT_EQUAL(created.body, replay.body);

    const HttpResult read = client.get(productPath(product), bearer(account.token));
    const std::string tag = read.header("ETag");
    CPPUNIT_ASSERT_MESSAGE(describe(read), !tag.empty());
    CPPUNIT_ASSERT_EQUAL(
        304,
        client.get(productPath(product), bearer(account.token, {{"If-None-Match", tag}})).status);
    E2E_ASSERT_DATA(200, client.patch(productPath(product), Json::object({{"name", "Desk 2"}}),
                                      bearer(account.token, {{"If-Match", tag}})));
    E2E_ASSERT_ERROR(412, client.patch(productPath(product), Json::object({{"name", "Desk 3"}}),
                                       bearer(account.token, {{"If-Match", tag}})));
    E2E_ASSERT_ERROR(412,
                     client.del(productPath(product), bearer(account.token, {{"If-Match", tag}})));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProductsRoutesTest);
