// The body of a batch (batch/BatchItems.h): what is read, and every refusal
// with its exact key and message.
#include <cppunit/extensions/HelperMacros.h>

#include "batch/BatchItems.h"
#include "rapport/error.h"

using rapport::Json;
using namespace rapport::host;

namespace {

Json body(Json::Array items) {
  return Json::object({{"items", Json(std::move(items))}});
}

// The field errors of the 422 `read` throws; fails when it throws nothing.
rapport::FieldErrors refusal(const Json& input, const std::string& upsertBy = "email") {
  try {
    readBatchItems(input, upsertBy);
  } catch (const rapport::Error& error) {
    CPPUNIT_ASSERT_EQUAL(422, error.status());
    return error.errors();
  }
  CPPUNIT_FAIL("no refusal for " + input.dump());
  return {};
}

}  // namespace

class BatchItemsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(BatchItemsTest);
  CPPUNIT_TEST(testItemsAreReadInOrder);
  CPPUNIT_TEST(testTheListIsOneToAHundredItems);
  CPPUNIT_TEST(testEachItemProblemIsKeyedByItsPath);
  CPPUNIT_TEST(testUpsertNeedsAKey);
  CPPUNIT_TEST(testMatchOnTheItemsElseTheBatchs);
  CPPUNIT_TEST(testMatchOnRefusals);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testItemsAreReadInOrder() {
    const auto items = readBatchItems(
        body({Json::object({{"action", "create"}, {"data", Json::object({{"name", "A"}})}}),
              Json::object({{"action", "update"}, {"id", "cont_1"}, {"data", Json::object()}}),
              Json::object({{"action", "upsert"}, {"data", Json::object({{"email", "a@b.co"}})}})}),
        "email");
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), items.size());
    CPPUNIT_ASSERT(items[0].action == BatchAction::Create);
    CPPUNIT_ASSERT(items[0].data == Json::object({{"name", "A"}}));
    CPPUNIT_ASSERT(items[0].id.empty());
    CPPUNIT_ASSERT(items[1].action == BatchAction::Update);
    CPPUNIT_ASSERT_EQUAL(std::string("cont_1"), items[1].id);
    CPPUNIT_ASSERT(items[2].action == BatchAction::Upsert);
  }

  void testTheListIsOneToAHundredItems() {
    using Errors = rapport::FieldErrors;
    CPPUNIT_ASSERT(
        (refusal(Json::object()) == Errors{{"items", {"The items field is required."}}}));
    CPPUNIT_ASSERT((refusal(Json::object({{"items", nullptr}})) ==
                    Errors{{"items", {"The items field is required."}}}));
    CPPUNIT_ASSERT((refusal(Json::object({{"items", "x"}})) ==
                    Errors{{"items", {"The items must be an array."}}}));
    CPPUNIT_ASSERT(
        (refusal(body({})) == Errors{{"items", {"The items must have at least 1 item."}}}));
    const Json item = Json::object({{"action", "create"}, {"data", Json::object()}});
    CPPUNIT_ASSERT_EQUAL(std::size_t(100), readBatchItems(body(Json::Array(100, item)), "").size());
    CPPUNIT_ASSERT((refusal(body(Json::Array(101, item))) ==
                    Errors{{"items", {"The items may not have more than 100 items."}}}));
  }

  void testEachItemProblemIsKeyedByItsPath() {
    const rapport::FieldErrors errors = refusal(body({
        Json::object({{"action", "create"}, {"data", Json::object()}}),
        Json::object({{"action", "delete"}, {"data", Json::object()}}),
        Json(3),
        Json::object({{"action", 7}, {"data", "x"}}),
        Json::object({{"action", "update"}, {"id", 12}, {"data", Json::object()}}),
        Json::object({{"action", "update"}, {"id", ""}, {"data", Json::object()}}),
        Json::object({{"action", "upsert"}, {"id", "cont_1"}, {"data", nullptr}}),
    }));
    const rapport::FieldErrors expected = {
        {"items.1.action", {"The selected items.1.action is invalid."}},
        {"items.2", {"The items.2 must be an object."}},
        {"items.3.action", {"The selected items.3.action is invalid."}},
        {"items.3.data", {"The items.3.data must be an object."}},
        {"items.4.id", {"The items.4.id must be a string."}},
        {"items.5.id", {"The items.5.id field is required."}},
        {"items.6.data", {"The items.6.data field is required."}},
        {"items.6.id", {"The items.6.id is only allowed on an update."}},
    };
    CPPUNIT_ASSERT(errors == expected);
  }

  void testUpsertNeedsAKey() {
    const Json upsert = body({Json::object({{"action", "upsert"}, {"data", Json::object()}})});
    CPPUNIT_ASSERT(
        (refusal(upsert, "") ==
         rapport::FieldErrors{{"items.0.action",
                               {"The items.0.action cannot be upsert: this collection has no "
                                "upsert key."}}}));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), readBatchItems(upsert, "sku").size());
  }

  // decisions §14: an upsert matches on its own match_on, else the batch's,
  // else on the collection's key (empty); other actions match on nothing.
  void testMatchOnTheItemsElseTheBatchs() {
    const Json upsert = Json::object({{"action", "upsert"}, {"data", Json::object()}});
    const Json own =
        Json::object({{"action", "upsert"}, {"match_on", "email"}, {"data", Json::object()}});
    const Json create = Json::object({{"action", "create"}, {"data", Json::object()}});
    Json withBatch = body({upsert, own, create});
    withBatch.set("match_on", "custom_fields.external_id");
    const auto items = readBatchItems(withBatch, "email");
    CPPUNIT_ASSERT_EQUAL(std::string("custom_fields.external_id"), items[0].matchOn);
    CPPUNIT_ASSERT(!items[0].ownMatchOn);
    CPPUNIT_ASSERT_EQUAL(std::string("email"), items[1].matchOn);
    CPPUNIT_ASSERT(items[1].ownMatchOn);
    CPPUNIT_ASSERT(items[2].matchOn.empty());
    const auto without = readBatchItems(body({upsert, own}), "email");
    CPPUNIT_ASSERT(without[0].matchOn.empty());
    CPPUNIT_ASSERT_EQUAL(std::string("email"), without[1].matchOn);
    // null is not sent.
    Json nulls = body(
        {Json::object({{"action", "upsert"}, {"match_on", nullptr}, {"data", Json::object()}})});
    nulls.set("match_on", nullptr);
    CPPUNIT_ASSERT(readBatchItems(nulls, "email")[0].matchOn.empty());
  }

  void testMatchOnRefusals() {
    Json bad =
        body({Json::object({{"action", "upsert"}, {"match_on", 3}, {"data", Json::object()}}),
              Json::object({{"action", "update"},
                            {"id", "cont_1"},
                            {"match_on", "email"},
                            {"data", Json::object()}}),
              Json::object({{"action", "upsert"}, {"match_on", ""}, {"data", "x"}})});
    bad.set("match_on", true);
    const rapport::FieldErrors expected = {
        {"match_on", {"The match_on must be a string."}},
        {"items.0.match_on", {"The items.0.match_on must be a string."}},
        {"items.1.match_on", {"The items.1.match_on is only allowed on an upsert."}},
        {"items.2.data", {"The items.2.data must be an object."}},
        {"items.2.match_on", {"The items.2.match_on must not be empty."}},
    };
    CPPUNIT_ASSERT(refusal(bad) == expected);
    // The batch's own problem beside the list's.
    CPPUNIT_ASSERT((refusal(Json::object({{"match_on", 1}})) ==
                    rapport::FieldErrors{{"items", {"The items field is required."}},
                                         {"match_on", {"The match_on must be a string."}}}));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(BatchItemsTest);
