// Decisions §13 on a third-party rapport::Resource: examples/products, built
// out of tree against the installed SDK (e2e.products' server,
// ProductsSuite.h), answers filter (a money range, name contains, the
// boolean `active`), sort with ties, fields, the cursor walk, search and the
// 422s with no query code of its own.
//
// Products of one tenant, oldest first:
//   chair   "Red Chair"      4999   active
//   blue    "Blue Chair"    12999   inactive
//   table   "Green Table"   25000   active
//   cushion "chair cushion"   999   active
//   lamp    "Lamp"           4999   active
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/products/ProductsSuite.h"
#include "e2e/query/QuerySuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::query;
using rapport::e2e::products::createProduct;
using rapport::e2e::products::kProducts;
using rapport::e2e::products::productsServer;

namespace {

struct Catalogue {
  Account account;
  std::string chair, blue, table, cushion, lamp;
};

const Catalogue& catalogue() {
  static const Catalogue data = [] {
    HttpClient client(productsServer().port());
    Catalogue c;
    c.account = registerUser(client, "query-products");
    const auto add = [&](const std::string& name, int price, bool active) {
      return createProduct(
                 client, c.account.token,
                 Json::object({{"name", name}, {"price", price}, {"active", active}}))["id"]
          .asString();
    };
    c.chair = add("Red Chair", 4999, true);
    c.blue = add("Blue Chair", 12999, false);
    c.table = add("Green Table", 25000, true);
    c.cushion = add("chair cushion", 999, true);
    c.lamp = add("Lamp", 4999, true);
    return c;
  }();
  return data;
}

}  // namespace

class QueryProductsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(QueryProductsTest);
  CPPUNIT_TEST(testPriceRangeAndNameContains);
  CPPUNIT_TEST(testBoolean);
  CPPUNIT_TEST(testSortWithTies);
  CPPUNIT_TEST(testCursorWalk);
  CPPUNIT_TEST(testSearch);
  CPPUNIT_TEST(testFields);
  CPPUNIT_TEST(testErrors);
  CPPUNIT_TEST(testForeignCursorsAre422);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    client_ = std::make_unique<HttpClient>(productsServer().port());
    token_ = catalogue().account.token;
  }
  void tearDown() override { client_.reset(); }

  Ids products(const std::string& filter) {
    return matching(*client_, token_, kProducts, Json::parse(filter));
  }

  void testPriceRangeAndNameContains() {
    const Catalogue& c = catalogue();
    CPPUNIT_ASSERT(products(R"({"price":{"gte":4999,"lt":25000}})") ==
                   (Ids{c.chair, c.blue, c.lamp}));
    CPPUNIT_ASSERT(products(R"({"price":{"gte":4999,"lt":25000},"name":{"contains":"CHAIR"}})") ==
                   (Ids{c.chair, c.blue}));
    CPPUNIT_ASSERT(products(R"({"name":{"starts_with":"chair"}})") == (Ids{c.cushion}));
    CPPUNIT_ASSERT(products(R"({"or":[{"price":{"lt":1000}},{"price":{"gt":20000}}]})") ==
                   (Ids{c.table, c.cushion}));
  }

  void testBoolean() {
    const Catalogue& c = catalogue();
    CPPUNIT_ASSERT(products(R"({"active":false})") == (Ids{c.blue}));
    CPPUNIT_ASSERT(products(R"({"active":{"eq":true}})") ==
                   (Ids{c.chair, c.table, c.cushion, c.lamp}));
    CPPUNIT_ASSERT(products(R"({"active":{"ne":true}})") == (Ids{c.blue}));
    CPPUNIT_ASSERT(products(R"({"not":{"active":true}})") == (Ids{c.blue}));
  }

  void testSortWithTies() {
    const Catalogue& c = catalogue();
    CPPUNIT_ASSERT(listed(*client_, token_, kProducts, "sort=-price,name") ==
                   (Ids{c.table, c.blue, c.lamp, c.chair, c.cushion}));
    CPPUNIT_ASSERT(listed(*client_, token_, kProducts, "sort=price") ==
                   concat({{c.cushion}, byId({c.chair, c.lamp}), {c.blue, c.table}}));
    CPPUNIT_ASSERT(listed(*client_, token_, kProducts, "sort=-price") ==
                   concat({{c.table, c.blue}, byId({c.chair, c.lamp}, true), {c.cushion}}));
    CPPUNIT_ASSERT(listed(*client_, token_, kProducts, "sort=name") ==
                   (Ids{c.blue, c.cushion, c.table, c.lamp, c.chair}));
  }

  void testCursorWalk() {
    const Catalogue& c = catalogue();
    const std::string query =
        filterParam(Json::parse(R"({"active":true})")) + "&sort=" + urlEncode("-price,name");
    const Walk walked = walk(*client_, token_, kProducts, query, 2);
    CPPUNIT_ASSERT(walked.ids == (Ids{c.table, c.lamp, c.chair, c.cushion}));
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), walked.metas.size());
    // A boolean sort key: inactive before active, ascending.
    CPPUNIT_ASSERT(walk(*client_, token_, kProducts, "sort=active,name", 1).ids ==
                   (Ids{c.blue, c.cushion, c.table, c.lamp, c.chair}));
    CPPUNIT_ASSERT(walk(*client_, token_, kProducts, "sort=-active,-price", 2).ids ==
                   concat({{c.table}, byId({c.chair, c.lamp}, true), {c.cushion, c.blue}}));
    const Json counted = listBody(*client_, token_, kProducts, query + "&limit=3&count=true");
    QUERY_ASSERT_CURSOR_META(counted["meta"], 3, true);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(4), counted["meta"]["total"].asInt());
    // The page form is unchanged, filter and sort included.
    const Json page = listBody(*client_, token_, kProducts, query + "&per_page=3&page=2");
    CPPUNIT_ASSERT(idsOf(page) == (Ids{c.cushion}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":2,"per_page":3,"total":4,"last_page":2})"),
                         page["meta"].dump());
  }

  void testSearch() {
    const Catalogue& c = catalogue();
    const HttpResult result =
        search(*client_, token_, kProducts,
               Json::object({{"filter", Json::parse(R"({"price":{"lte":4999}})")},
                             {"sort", "price,-name"},
                             {"limit", 2},
                             {"count", true}}));
    E2E_ASSERT_DATA(200, result);
    const Json body = result.json();
    CPPUNIT_ASSERT(idsOf(body) == (Ids{c.cushion, c.chair}));
    QUERY_ASSERT_CURSOR_META(body["meta"], 2, true);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), body["meta"]["total"].asInt());
  }

  void testFields() {
    const Json body = listBody(*client_, token_, kProducts, "sort=name&fields=name,price");
    CPPUNIT_ASSERT_EQUAL(std::size_t(5), body["data"].size());
    for (const Json& record : body["data"].asArray()) {
      CPPUNIT_ASSERT_MESSAGE(record.dump(),
                             keysOf(record) == (std::vector<std::string>{"id", "name", "price"}));
    }
  }

  void testErrors() {
    const auto get = [&](const std::string& query) {
      return client_->get(kProducts + "?" + query, bearer(token_));
    };
    QUERY_ASSERT_ERROR_KEY(get("filter=" + urlEncode(R"({"nope":1})")), "filter.nope");
    QUERY_ASSERT_ERROR_KEY(get("filter=" + urlEncode(R"({"price":{"contains":"1"}})")),
                           "filter.price.contains");
    QUERY_ASSERT_ERROR_KEY(get("filter=" + urlEncode(R"({"active":{"gt":true}})")),
                           "filter.active.gt");
    QUERY_ASSERT_ERROR_UNDER(get("filter=" + urlEncode(R"({"active":"yes"})")), "filter.active");
    QUERY_ASSERT_ERROR_KEY(get("filter=" + urlEncode("{")), "filter");
    QUERY_ASSERT_ERROR_KEY(get("sort=nope"), "sort");
    QUERY_ASSERT_ERROR_KEY(get("fields=nope"), "fields");
    QUERY_ASSERT_ERROR_KEY(get("include=nope"), "include");
    QUERY_ASSERT_ERROR_KEY(get("limit=101"), "limit");
    QUERY_ASSERT_ERROR_KEY(get("limit=2&cursor=abc"), "cursor");
  }

  void testForeignCursorsAre422() {
    const Account other = registerUser(*client_, "query-products-other");
    const std::string cursor = firstCursor(*client_, token_, kProducts, "sort=price", 1);
    QUERY_ASSERT_ERROR_KEY(
        client_->get(kProducts + "?sort=price&limit=1&cursor=" + urlEncode(cursor),
                     bearer(other.token)),
        "cursor");
    // Nor is a products cursor one of contacts.
    const std::string newest = firstCursor(*client_, token_, kProducts, "sort=created_at", 1);
    QUERY_ASSERT_ERROR_KEY(
        client_->get("/v1/crm/contacts?sort=created_at&limit=1&cursor=" + urlEncode(newest),
                     bearer(token_)),
        "cursor");
  }

 private:
  std::unique_ptr<HttpClient> client_;
  std::string token_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(QueryProductsTest);
