// The products module through the SDK's in-process harness: the real host
// (authentication, tenancy, roles, errors) with rapport_products.so loaded
// and a fresh database per test (SQLite, or PostgreSQL when
// RAPPORT_TEST_DATABASE_URL names a server).
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <string>
#include <vector>

#include "rapport/testing.h"

using rapport::Json;
using rapport::Role;
using rapport::testing::Client;
using rapport::testing::Harness;
using rapport::testing::Reply;

namespace {

const std::string kProducts = "/v1/crm/products";

// The types of the company's events, oldest first.
std::vector<std::string> eventTypes(Harness& harness, const Client& client) {
  std::vector<std::string> types;
  for (const Json& event : harness.events(client)) types.push_back(event["type"].asString());
  return types;
}

// The ids of a list's records, in order.
std::vector<std::string> idsOf(const Reply& reply) {
  std::vector<std::string> ids;
  for (const Json& record : reply.data().asArray()) ids.push_back(record["id"].asString());
  return ids;
}

// The single message of `field` in a 422 answer ("" when it has none or several).
std::string errorOf(const Reply& reply, const std::string& field) {
  const std::vector<std::string> messages = reply.fieldErrors(field);
  return messages.size() == 1 ? messages.front() : "";
}

}  // namespace

class ProductsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ProductsTest);
  CPPUNIT_TEST(testCreateShowsDefaults);
  CPPUNIT_TEST(testGetAnswersTheCreatedRecord);
  CPPUNIT_TEST(testPatchChangesOnlySentFields);
  CPPUNIT_TEST(testPatchWithNothingToChangeWritesNothing);
  CPPUNIT_TEST(testDelete);
  CPPUNIT_TEST(testCreateRefusesInvalidFields);
  CPPUNIT_TEST(testPatchRefusesClearingTheName);
  CPPUNIT_TEST(testSkuIsUniquePerCompany);
  CPPUNIT_TEST(testListPagesNewestFirst);
  CPPUNIT_TEST(testListSorts);
  CPPUNIT_TEST(testListSearchesNameAndSku);
  CPPUNIT_TEST(testListFiltersActive);
  CPPUNIT_TEST(testAnotherCompanysProductIsNotFound);
  CPPUNIT_TEST(testMembersReadAndAdminsWrite);
  CPPUNIT_TEST(testAnonymousIsRefused);
  CPPUNIT_TEST(testEventsCarryTheRecordAsGetShowsIt);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    rapport::testing::HarnessOptions options;
    options.modules = {"products"};  // and the modules it depends on
    harness_ = std::make_unique<Harness>(options);
    alice_ = harness_->signUp();
  }

  void tearDown() override {
    alice_ = Client();
    harness_.reset();
  }

  void testCreateShowsDefaults() {
    const Reply made = alice_.post(kProducts, Json::object({{"name", "  Desk lamp  "}}));
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Product created."), made.message());
    const Json& product = made.data();
    CPPUNIT_ASSERT(product["id"].asString().rfind("prod_", 0) == 0);
    CPPUNIT_ASSERT_EQUAL(std::string("Desk lamp"), product["name"].asString());  // trimmed
    CPPUNIT_ASSERT(product["sku"].isNull());
    CPPUNIT_ASSERT(product["description"].isNull());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, product["price"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("USD"), product["currency"].asString());
    CPPUNIT_ASSERT_EQUAL(true, product["active"].asBool());
    CPPUNIT_ASSERT(product["created_at"].asString().back() == 'Z');
    CPPUNIT_ASSERT_EQUAL(product["created_at"].asString(), product["updated_at"].asString());
    // The fields in declaration order, between id and the timestamps, then
    // the company's custom fields (none defined: an empty object).
    std::vector<std::string> keys;
    for (const auto& [key, value] : product.asObject()) keys.push_back(key);
    const std::vector<std::string> expected = {
        "id",       "name",   "sku",        "description", "price",
        "currency", "active", "created_at", "updated_at",  "custom_fields"};
    CPPUNIT_ASSERT(keys == expected);
  }

  void testGetAnswersTheCreatedRecord() {
    const Reply made = alice_.post(kProducts, Json::object({{"name", "Chair"},
                                                            {"sku", "CH-1"},
                                                            {"description", "Oak."},
                                                            {"price", 12999},
                                                            {"currency", "EUR"},
                                                            {"active", false}}));
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    const std::string id = made.data()["id"].asString();
    const Reply shown = alice_.get(kProducts + "/" + id);
    CPPUNIT_ASSERT_EQUAL(200, shown.status);
    CPPUNIT_ASSERT(shown.data() == made.data());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{12999}, shown.data()["price"].asInt());
    CPPUNIT_ASSERT_EQUAL(false, shown.data()["active"].asBool());

    const Reply missing = alice_.get(kProducts + "/prod_doesnotexist");
    CPPUNIT_ASSERT_EQUAL(404, missing.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Product not found."), missing.message());
    // Another resource's prefix is simply not a product.
    CPPUNIT_ASSERT_EQUAL(404, alice_.get(kProducts + "/cont_" + id.substr(5)).status);
  }

  void testPatchChangesOnlySentFields() {
    const Json made = create(Json::object({{"name", "Chair"}, {"sku", "CH-1"}, {"price", 100}}));
    const std::string id = made["id"].asString();
    const Reply changed =
        alice_.patch(kProducts + "/" + id, Json::object({{"price", 250}, {"currency", nullptr}}));
    CPPUNIT_ASSERT_EQUAL(200, changed.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Product updated."), changed.message());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{250}, changed.data()["price"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("USD"), changed.data()["currency"].asString());  // default
    CPPUNIT_ASSERT_EQUAL(std::string("Chair"), changed.data()["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("CH-1"), changed.data()["sku"].asString());

    // A sent null clears a field without a default; a blank text is null too.
    const Reply cleared =
        alice_.patch(kProducts + "/" + id, Json::object({{"sku", nullptr}, {"description", "  "}}));
    CPPUNIT_ASSERT_EQUAL(200, cleared.status);
    CPPUNIT_ASSERT(cleared.data()["sku"].isNull());
    CPPUNIT_ASSERT(cleared.data()["description"].isNull());
    CPPUNIT_ASSERT(alice_.get(kProducts + "/" + id).data() == cleared.data());

    CPPUNIT_ASSERT_EQUAL(
        404, alice_.patch(kProducts + "/prod_nothere", Json::object({{"price", 1}})).status);
  }

  void testPatchWithNothingToChangeWritesNothing() {
    const Json made = create(Json::object({{"name", "Chair"}}));
    const Reply same = alice_.patch(kProducts + "/" + made["id"].asString(),
                                    Json::object({{"unknown", 1}, {"id", "prod_other"}}));
    CPPUNIT_ASSERT_EQUAL(200, same.status);
    CPPUNIT_ASSERT(same.data() == made);
    CPPUNIT_ASSERT(eventTypes(*harness_, alice_) ==
                   std::vector<std::string>{"crm.product.created"});
  }

  void testDelete() {
    const std::string id = create(Json::object({{"name", "Chair"}}))["id"].asString();
    const Reply removed = alice_.del(kProducts + "/" + id);
    CPPUNIT_ASSERT_EQUAL(200, removed.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Product deleted."), removed.message());
    CPPUNIT_ASSERT(removed.data() == Json::object({{"id", id}}));
    CPPUNIT_ASSERT_EQUAL(404, alice_.get(kProducts + "/" + id).status);
    const Reply again = alice_.del(kProducts + "/" + id);
    CPPUNIT_ASSERT_EQUAL(404, again.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Product not found."), again.message());
  }

  void testCreateRefusesInvalidFields() {
    const Reply refused = alice_.post(kProducts, Json::object({{"sku", std::string(65, 'x')},
                                                               {"price", -1},
                                                               {"currency", "usd"},
                                                               {"active", "yes"}}));
    CPPUNIT_ASSERT_EQUAL(422, refused.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The name field is required."), errorOf(refused, "name"));
    CPPUNIT_ASSERT_EQUAL(std::string("The sku may not be greater than 64 characters."),
                         errorOf(refused, "sku"));
    CPPUNIT_ASSERT_EQUAL(std::string("The price must be at least 0."), errorOf(refused, "price"));
    CPPUNIT_ASSERT_EQUAL(std::string("The currency must be a 3-letter upper-case code."),
                         errorOf(refused, "currency"));
    CPPUNIT_ASSERT_EQUAL(std::string("The active field must be true or false."),
                         errorOf(refused, "active"));
    // The message is the first field's (errors are ordered by field name).
    CPPUNIT_ASSERT_EQUAL(std::string("The active field must be true or false."), refused.message());

    const Reply fraction = alice_.post(kProducts, Json::object({{"name", "A"}, {"price", 1.5}}));
    CPPUNIT_ASSERT_EQUAL(422, fraction.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The price must be an integer."), errorOf(fraction, "price"));
    const Reply blank = alice_.post(kProducts, Json::object({{"name", "   "}}));
    CPPUNIT_ASSERT_EQUAL(std::string("The name field is required."), errorOf(blank, "name"));
    // Nothing was written.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, alice_.get(kProducts).meta()["total"].asInt());
    CPPUNIT_ASSERT(harness_->events(alice_).empty());
  }

  void testPatchRefusesClearingTheName() {
    const std::string id = create(Json::object({{"name", "Chair"}}))["id"].asString();
    const Reply refused = alice_.patch(kProducts + "/" + id, Json::object({{"name", nullptr}}));
    CPPUNIT_ASSERT_EQUAL(422, refused.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The name field is required."), errorOf(refused, "name"));
    CPPUNIT_ASSERT_EQUAL(std::string("Chair"),
                         alice_.get(kProducts + "/" + id).data()["name"].asString());
  }

  void testSkuIsUniquePerCompany() {
    create(Json::object({{"name", "Chair"}, {"sku", "CH-1"}}));
    const Reply duplicate = alice_.post(kProducts, Json::object({{"name", "B"}, {"sku", "CH-1"}}));
    CPPUNIT_ASSERT_EQUAL(409, duplicate.status);
    CPPUNIT_ASSERT_EQUAL(std::string("A product with this sku already exists."),
                         duplicate.message());
    // Products without a sku are not duplicates of each other.
    create(Json::object({{"name", "No sku 1"}}));
    create(Json::object({{"name", "No sku 2"}}));
    // A PATCH to a taken sku is refused the same way.
    const std::string other =
        create(Json::object({{"name", "Table"}, {"sku", "TB-1"}}))["id"].asString();
    const Reply taken = alice_.patch(kProducts + "/" + other, Json::object({{"sku", "CH-1"}}));
    CPPUNIT_ASSERT_EQUAL(409, taken.status);
    CPPUNIT_ASSERT_EQUAL(std::string("TB-1"),
                         alice_.get(kProducts + "/" + other).data()["sku"].asString());
    // Another company has its own skus.
    Client bob = harness_->signUp();
    CPPUNIT_ASSERT_EQUAL(
        201, bob.post(kProducts, Json::object({{"name", "C"}, {"sku", "CH-1"}})).status);
  }

  void testListPagesNewestFirst() {
    std::vector<std::string> ids;
    for (int i = 1; i <= 5; ++i) {
      ids.push_back(create(Json::object({{"name", "P" + std::to_string(i)}}))["id"].asString());
    }
    const Reply first = alice_.get(kProducts + "?per_page=2");
    CPPUNIT_ASSERT_EQUAL(200, first.status);
    CPPUNIT_ASSERT_EQUAL(std::string("OK."), first.message());
    CPPUNIT_ASSERT((idsOf(first) == std::vector<std::string>{ids[4], ids[3]}));
    CPPUNIT_ASSERT(
        first.meta() ==
        Json::object({{"current_page", 1}, {"per_page", 2}, {"total", 5}, {"last_page", 3}}));
    const Reply last = alice_.get(kProducts + "?per_page=2&page=3");
    CPPUNIT_ASSERT((idsOf(last) == std::vector<std::string>{ids[0]}));
    const Reply past = alice_.get(kProducts + "?per_page=2&page=9");
    CPPUNIT_ASSERT_EQUAL(200, past.status);
    CPPUNIT_ASSERT(idsOf(past).empty());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{5}, past.meta()["total"].asInt());
    // A listed record is the record as GET shows it.
    CPPUNIT_ASSERT(first.data().asArray().front() == alice_.get(kProducts + "/" + ids[4]).data());

    const Reply tooMany = alice_.get(kProducts + "?per_page=101");
    CPPUNIT_ASSERT_EQUAL(422, tooMany.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The per_page must be an integer between 1 and 100."),
                         errorOf(tooMany, "per_page"));
  }

  void testListSorts() {
    const std::string b =
        create(Json::object({{"name", "bench"}, {"price", 300}}))["id"].asString();
    const std::string a =
        create(Json::object({{"name", "Armchair"}, {"price", 500}}))["id"].asString();
    const std::string c =
        create(Json::object({{"name", "Cabinet"}, {"price", 100}}))["id"].asString();
    CPPUNIT_ASSERT(
        (idsOf(alice_.get(kProducts + "?sort=name")) == std::vector<std::string>{a, b, c}));
    CPPUNIT_ASSERT(
        (idsOf(alice_.get(kProducts + "?sort=-price")) == std::vector<std::string>{a, b, c}));
    CPPUNIT_ASSERT(
        (idsOf(alice_.get(kProducts + "?sort=created_at")) == std::vector<std::string>{b, a, c}));
    // Every field sorts (decisions §13); an unknown name does not.
    const Reply unsupported = alice_.get(kProducts + "?sort=skus");
    CPPUNIT_ASSERT_EQUAL(422, unsupported.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The sort field is not supported."),
                         errorOf(unsupported, "sort"));
  }

  void testListSearchesNameAndSku() {
    const std::string lamp =
        create(Json::object({{"name", "Desk Lamp"}, {"sku", "LMP-7"}}))["id"].asString();
    const std::string chair =
        create(Json::object({{"name", "Chair"}, {"sku", "CH-100%"}}))["id"].asString();
    create(Json::object(
        {{"name", "Table"}, {"description", "lamp-free"}}));  // description: not searched
    CPPUNIT_ASSERT(
        (idsOf(alice_.get(kProducts + "?search=LAMP")) == std::vector<std::string>{lamp}));
    CPPUNIT_ASSERT(
        (idsOf(alice_.get(kProducts + "?search=lmp-7")) == std::vector<std::string>{lamp}));
    CPPUNIT_ASSERT((idsOf(alice_.get(kProducts + "?search=ch")) ==
                    std::vector<std::string>{chair}));  // short term
    CPPUNIT_ASSERT(
        (idsOf(alice_.get(kProducts + "?search=100%25")) == std::vector<std::string>{chair}));
    const Reply found = alice_.get(kProducts + "?search=lamp");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, found.meta()["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{3},
        alice_.get(kProducts + "?search=%20").meta()["total"].asInt());  // blank: ignored
    const Reply tooLong = alice_.get(kProducts + "?search=" + std::string(256, 'a'));
    CPPUNIT_ASSERT_EQUAL(422, tooLong.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The search may not be greater than 255 characters."),
                         errorOf(tooLong, "search"));
  }

  void testListFiltersActive() {
    const std::string on = create(Json::object({{"name", "On"}}))["id"].asString();
    const std::string off =
        create(Json::object({{"name", "Off"}, {"active", false}}))["id"].asString();
    CPPUNIT_ASSERT((idsOf(alice_.get(kProducts + "?active=true")) == std::vector<std::string>{on}));
    const Reply inactive = alice_.get(kProducts + "?active=false");
    CPPUNIT_ASSERT((idsOf(inactive) == std::vector<std::string>{off}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, inactive.meta()["total"].asInt());
    const Reply malformed = alice_.get(kProducts + "?active=maybe");
    CPPUNIT_ASSERT_EQUAL(422, malformed.status);
    CPPUNIT_ASSERT_EQUAL(std::string("The active field must be true or false."),
                         errorOf(malformed, "active"));
  }

  void testAnotherCompanysProductIsNotFound() {
    const std::string id = create(Json::object({{"name", "Chair"}}))["id"].asString();
    Client bob = harness_->signUp();
    const Reply read = bob.get(kProducts + "/" + id);
    CPPUNIT_ASSERT_EQUAL(404, read.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Product not found."), read.message());
    CPPUNIT_ASSERT_EQUAL(404,
                         bob.patch(kProducts + "/" + id, Json::object({{"name", "X"}})).status);
    CPPUNIT_ASSERT_EQUAL(404, bob.del(kProducts + "/" + id).status);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, bob.get(kProducts).meta()["total"].asInt());
    // Untouched for its owner.
    CPPUNIT_ASSERT_EQUAL(std::string("Chair"),
                         alice_.get(kProducts + "/" + id).data()["name"].asString());
    CPPUNIT_ASSERT(harness_->events(bob).empty());
  }

  void testMembersReadAndAdminsWrite() {
    const std::string id = create(Json::object({{"name", "Chair"}}))["id"].asString();
    Client member = harness_->join(alice_, Role::Member);
    CPPUNIT_ASSERT_EQUAL(200, member.get(kProducts).status);
    CPPUNIT_ASSERT_EQUAL(200, member.get(kProducts + "/" + id).status);
    CPPUNIT_ASSERT_EQUAL(403, member.post(kProducts, Json::object({{"name", "X"}})).status);
    CPPUNIT_ASSERT_EQUAL(403,
                         member.patch(kProducts + "/" + id, Json::object({{"name", "X"}})).status);
    CPPUNIT_ASSERT_EQUAL(403, member.del(kProducts + "/" + id).status);
    Client admin = harness_->join(alice_, Role::Admin);
    CPPUNIT_ASSERT_EQUAL(201, admin.post(kProducts, Json::object({{"name", "Y"}})).status);
    CPPUNIT_ASSERT_EQUAL(200, admin.del(kProducts + "/" + id).status);
  }

  void testAnonymousIsRefused() {
    Client nobody = harness_->anonymous();
    CPPUNIT_ASSERT_EQUAL(401, nobody.get(kProducts).status);
    CPPUNIT_ASSERT_EQUAL(401, nobody.post(kProducts, Json::object({{"name", "X"}})).status);
  }

  void testEventsCarryTheRecordAsGetShowsIt() {
    const std::string id = create(Json::object({{"name", "Chair"}}))["id"].asString();
    const Json created = alice_.get(kProducts + "/" + id).data();
    CPPUNIT_ASSERT_EQUAL(200,
                         alice_.patch(kProducts + "/" + id, Json::object({{"price", 5}})).status);
    const Json updated = alice_.get(kProducts + "/" + id).data();
    CPPUNIT_ASSERT_EQUAL(200, alice_.del(kProducts + "/" + id).status);

    const std::vector<Json> events = harness_->events(alice_);
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, events.size());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.product.created"), events[0]["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.product.updated"), events[1]["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.product.deleted"), events[2]["type"].asString());
    for (const Json& event : events) {
      CPPUNIT_ASSERT_EQUAL(std::string("products"), event["module"].asString());
    }
    CPPUNIT_ASSERT(events[0]["data"] == created);
    CPPUNIT_ASSERT(events[1]["data"] == updated);
    CPPUNIT_ASSERT(events[2]["data"] == Json::object({{"id", id}}));
  }

 private:
  // Creates a product as alice and returns it (asserting the 201).
  Json create(const Json& body) {
    const Reply made = alice_.post(kProducts, body);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(made.text, 201, made.status);
    return made.data();
  }

  std::unique_ptr<Harness> harness_;
  Client alice_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProductsTest);
