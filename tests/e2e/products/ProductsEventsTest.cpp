// examples/products' events like a first-party module's (decisions §8, §11):
// declared in GET /v1/webhooks/events with module "products", written to
// the host's event log, and delivered to a subscribed webhook over HTTPS,
// signed (the signature checked with `openssl dgst`, as e2e.webhooks does).
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>

#include "e2e/products/ProductsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::products;

namespace {

// The event rows of `account`'s company written by module "products",
// oldest first: {type, data}.
std::vector<std::pair<std::string, Json>> productEvents(const Account& account) {
  std::vector<std::pair<std::string, Json>> out;
  for (const auto& row : queryDatabase(
           productsServer().databaseUrl(),
           "SELECT type, data FROM events WHERE company_id = " + sqlQuote(account.companyId) +
               " AND module = " + sqlQuote("products") + " ORDER BY sequence")) {
    out.emplace_back(row.at(0), Json::parse(row.at(1)));
  }
  return out;
}

}  // namespace

class ProductsEventsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ProductsEventsTest);
  CPPUNIT_TEST(testCatalogueListsTheThreeTypes);
  CPPUNIT_TEST(testEventLogRecordsEveryChange);
  CPPUNIT_TEST(testSubscribedWebhookReceivesSignedEvents);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCatalogueListsTheThreeTypes() {
    HttpClient client(productsServer().port());
    const Account account = registerUser(client, "products-catalogue");
    CPPUNIT_ASSERT(catalogueOf(client, account.token, "products") == kProductEvents);
    const Json list =
        E2E_ASSERT_DATA(200, client.get("/v1/webhooks/events", bearer(account.token)));
    for (const Json& item : list.asArray()) {
      if (item["module"].asString() != "products") continue;
      CPPUNIT_ASSERT_MESSAGE(item.dump(), !item["description"].asString().empty());
    }
    // Beside the first-party modules' types, not instead of them.
    CPPUNIT_ASSERT(contains(catalogueOf(client, account.token, "contacts"), "crm.contact.created"));
  }

  void testEventLogRecordsEveryChange() {
    HttpClient client(productsServer().port());
    const Account account = registerUser(client, "products-log");
    const Json product = createProduct(client, account.token, Json::object({{"name", "Lamp"}}));
    const Json updated = E2E_ASSERT_DATA(
        200, client.patch(productPath(product), Json::object({{"name", "Big Lamp"}}),
                          bearer(account.token)));
    E2E_ASSERT_DATA(200, client.del(productPath(product), bearer(account.token)));

    const auto events = productEvents(account);
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), events.size());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.product.created"), events[0].first);
    CPPUNIT_ASSERT_EQUAL(std::string("crm.product.updated"), events[1].first);
    CPPUNIT_ASSERT_EQUAL(std::string("crm.product.deleted"), events[2].first);
    // The data is the record as GET answered it at that moment.
    WEBHOOKS_ASSERT_SAME_JSON(product, events[0].second);
    WEBHOOKS_ASSERT_SAME_JSON(updated, events[1].second);
    CPPUNIT_ASSERT_EQUAL(product["id"].asString(), events[2].second["id"].asString());
  }

  void testSubscribedWebhookReceivesSignedEvents() {
    Receiver receiver;
    HttpClient client(productsServer().port());
    const Account account = registerUser(client, "products-webhook");
    const Json webhook = createWebhook(
        client, account.token, receiver.url("/products"),
        eventsList({"crm.product.created", "crm.product.updated", "crm.product.deleted"}));
    // Subscribed to another module's type only: gets none of these.
    const Json other = createWebhook(client, account.token, receiver.url("/contacts"),
                                     eventsList({"crm.contact.created"}));
    const std::string secret = webhook["secret"].asString();

    const Json product = createProduct(client, account.token, Json::object({{"name", "Lamp"}}));
    CPPUNIT_ASSERT(receiver.waitForRequests(1, 20s, "/products"));
    const ReceivedRequest created = receiver.requests("/products").at(0);
    CPPUNIT_ASSERT_EQUAL(std::string("POST"), created.method);
    CPPUNIT_ASSERT_EQUAL(std::string("crm.product.created"), created.header("X-Service-Event"));
    CPPUNIT_ASSERT_EQUAL(std::string("application/json"), created.header("Content-Type"));
    const Json envelope = Json::parse(created.body);
    CPPUNIT_ASSERT_EQUAL(std::string("crm.product.created"), envelope["event"].asString());
    CPPUNIT_ASSERT_MESSAGE(created.body, envelope["id"].asString().rfind("evt_", 0) == 0);
    WEBHOOKS_ASSERT_SAME_JSON(product, envelope["data"]);
    // Signed with the webhook's secret, and with nothing else.
    CPPUNIT_ASSERT_MESSAGE(created.header("X-Service-Signature"), signedWith(created, secret));
    CPPUNIT_ASSERT(!signedWith(created, secret.substr(6)));
    CPPUNIT_ASSERT(!signedWith(created, other["secret"].asString()));

    E2E_ASSERT_DATA(200, client.patch(productPath(product), Json::object({{"name", "Big Lamp"}}),
                                      bearer(account.token)));
    E2E_ASSERT_DATA(200, client.del(productPath(product), bearer(account.token)));
    CPPUNIT_ASSERT(receiver.waitForRequests(3, 20s, "/products"));
    std::vector<std::string> types;
    for (const ReceivedRequest& request : receiver.requests("/products")) {
      types.push_back(request.header("X-Service-Event"));
      CPPUNIT_ASSERT(signedWith(request, secret));
      CPPUNIT_ASSERT_EQUAL(product["id"].asString(),
                           Json::parse(request.body)["data"]["id"].asString());
    }
    std::sort(types.begin(), types.end());
    CPPUNIT_ASSERT(types == kProductEvents);

    // The deliveries are recorded as successes; the other webhook has none.
    const Json deliveries = waitForDeliveries(
        client, account.token, webhook,
        [](const Json& data) {
          return data.size() == 3 &&
                 std::all_of(data.asArray().begin(), data.asArray().end(),
                             [](const Json& d) { return d["status"].asString() == "success"; });
        },
        20s);
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), deliveries.size());
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), deliveriesOf(client, account.token, other)["data"].size());
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), receiver.count("/contacts"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProductsEventsTest);
