// What the host adds around examples/products' routes, as for any route:
// rate limits (X-RateLimit-* on every answer, a 429 with the envelope),
// versioning (the routes live under /v1 only; an unknown version, no
// version, a deprecation and a sunset answer as the host does elsewhere) and
// request ids (echoed, and recorded with the module's event).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/common/Timely.h"
#include "e2e/products/ProductsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::products;

namespace {

constexpr int kHour = 3600;

// A products server with its own deprecation rule for /v1/crm/products.
ServerProcess::Settings deprecated(const std::string& sunsetAt) {
  return productsSettings(kWithProducts, {{"deprecations", "products"},
                                          {"deprecations.products.prefix", "/v1/crm/products"},
                                          {"deprecations.products.deprecated_at", "2020-01-01"},
                                          {"deprecations.products.sunset_at", sunsetAt}});
}

}  // namespace

class ProductsHostTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ProductsHostTest);
  CPPUNIT_TEST(testRateLimitCountsProductRoutesThen429);
  CPPUNIT_TEST(testRoutesLiveUnderV1Only);
  CPPUNIT_TEST(testDeprecationHeadersOnProductRoutes);
  CPPUNIT_TEST(testSunsetProductRoutesAnswer410);
  CPPUNIT_TEST(testRequestIdIsEchoedAndRecordedWithTheEvent);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testRateLimitCountsProductRoutesThen429() {
    ServerProcess server(productsSettings(
        kWithProducts, {{"ratelimit.requests", "3"}, {"ratelimit.window", std::to_string(kHour)}}));
    HttpClient client(server.port());
    awayFromWindowEdge(kHour);  // the token's four requests count in one window
    const Account account = registerUser(client, "products-limit");  // the address's counter

    // The token's counter: three product requests, then 429.
    const Json product = createProduct(client, account.token, Json::object({{"name", "Lamp"}}));
    const std::vector<HttpResult> answers = {
        client.get(kProducts, bearer(account.token)),
        client.get(productPath(product), bearer(account.token)),
    };
    std::int64_t remaining = 1;
    for (const HttpResult& answer : answers) {
      E2E_ASSERT_STATUS(200, answer);
      E2E_ASSERT_RATE_HEADERS(answer);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(answer), std::int64_t(3),
                                   headerInt(answer, "X-RateLimit-Limit"));
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(answer), remaining--,
                                   headerInt(answer, "X-RateLimit-Remaining"));
    }
    const HttpResult limited = client.patch(
        productPath(product), Json::object({{"name", "Too many"}}), bearer(account.token));
    E2E_ASSERT_ERROR(429, limited);
    CPPUNIT_ASSERT_EQUAL(std::string("Too Many Requests"), limited.reason);
    E2E_ASSERT_COMMON_HEADERS(limited);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), headerInt(limited, "X-RateLimit-Remaining"));
    const std::int64_t retryAfter = headerInt(limited, "Retry-After");
    CPPUNIT_ASSERT_MESSAGE(describe(limited), retryAfter >= 1 && retryAfter <= kHour);
    E2E_ASSERT_ERROR(429, client.get(productPath(product), bearer(account.token)));
    // The limited update never reached the module: no event.
    const auto rows =
        queryDatabase(server.databaseUrl(), "SELECT COUNT(*) FROM events WHERE type = " +
                                                sqlQuote("crm.product.updated"));
    CPPUNIT_ASSERT_EQUAL(std::string("0"), rows.at(0).at(0));
  }

  void testRoutesLiveUnderV1Only() {
    HttpClient client(productsServer().port());
    const Account account = registerUser(client, "products-versions");
    const Json product = createProduct(client, account.token, Json::object({{"name", "Lamp"}}));
    // The host's answer for a version it does not serve, on one of its own
    // routes: the products routes answer exactly the same.
    const HttpResult host = client.get("/v2/auth/me", bearer(account.token));
    const Json expected = E2E_ASSERT_ERROR(404, host);
    for (const std::string& path :
         {std::string("/v2/crm/products"), "/v2/crm/products/" + product["id"].asString(),
          std::string("/crm/products"), "/crm/products/" + product["id"].asString(),
          std::string("/v1.1/crm/products")}) {
      const HttpResult result = client.get(path, bearer(account.token));
      CPPUNIT_ASSERT_EQUAL_MESSAGE(path, expected.dump(), E2E_ASSERT_ERROR(404, result).dump());
      E2E_ASSERT_COMMON_HEADERS(result);
    }
    E2E_ASSERT_DATA(200, client.get(productPath(product), bearer(account.token)));
  }

  void testDeprecationHeadersOnProductRoutes() {
    ServerProcess server(deprecated("2099-12-31"));
    HttpClient client(server.port());
    const Account account = registerUser(client, "products-deprecated");
    const HttpResult created =
        client.post(kProducts, Json::object({{"name", "Lamp"}}), bearer(account.token));
    E2E_ASSERT_DATA(201, created);
    const HttpResult invalid = client.post(kProducts, Json::object(), bearer(account.token));
    E2E_ASSERT_ERROR(422, invalid);
    for (const HttpResult* result : {&created, &invalid}) {
      CPPUNIT_ASSERT_MESSAGE(describe(*result),
                             result->header("Deprecation").rfind("2020-01-01", 0) == 0);
      CPPUNIT_ASSERT_MESSAGE(describe(*result),
                             result->header("Sunset").rfind("2099-12-31", 0) == 0);
    }
    // Only the products routes carry them.
    const HttpResult me = client.get("/v1/auth/me", bearer(account.token));
    E2E_ASSERT_DATA(200, me);
    CPPUNIT_ASSERT_MESSAGE(describe(me), !me.hasHeader("Deprecation") && !me.hasHeader("Sunset"));
  }

  void testSunsetProductRoutesAnswer410() {
    ServerProcess server(deprecated("2021-01-01"));
    HttpClient client(server.port());
    const Account account = registerUser(client, "products-sunset");
    for (const HttpResult& result :
         {client.get(kProducts, bearer(account.token)),
          client.post(kProducts, Json::object({{"name", "Lamp"}}), bearer(account.token)),
          client.get(kProducts + "/prod_x", bearer(account.token))}) {
      E2E_ASSERT_ERROR(410, result);
      E2E_ASSERT_COMMON_HEADERS(result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), result.header("Sunset").rfind("2021-01-01", 0) == 0);
    }
    // Nothing reached the module.
    const auto rows = queryDatabase(
        server.databaseUrl(), "SELECT COUNT(*) FROM events WHERE module = " + sqlQuote("products"));
    CPPUNIT_ASSERT_EQUAL(std::string("0"), rows.at(0).at(0));
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
  }

  void testRequestIdIsEchoedAndRecordedWithTheEvent() {
    HttpClient client(productsServer().port());
    const Account account = registerUser(client, "products-request-id");
    const std::string id = "e2e-products-" + randomHex(8);
    const HttpResult created = client.post(kProducts, Json::object({{"name", "Lamp"}}),
                                           bearer(account.token, {{"X-Request-Id", id}}));
    const Json product = E2E_ASSERT_DATA(201, created);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(created), id, created.header("X-Request-Id"));
    const HttpResult invalid =
        client.post(kProducts, Json::object(), bearer(account.token, {{"X-Request-Id", id}}));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(invalid), id, invalid.header("X-Request-Id"));

    const auto rows =
        queryDatabase(productsServer().databaseUrl(),
                      "SELECT type, module, request_id FROM events WHERE company_id = " +
                          sqlQuote(account.companyId) + " AND module = " + sqlQuote("products"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), rows.size());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.product.created"), rows.at(0).at(0));
    CPPUNIT_ASSERT_EQUAL(std::string("products"), rows.at(0).at(1));
    CPPUNIT_ASSERT_EQUAL(id, rows.at(0).at(2));
    CPPUNIT_ASSERT_MESSAGE(product.dump(), !product["id"].asString().empty());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProductsHostTest);
