// Custom fields in events and batches (decisions §14): definition changes
// emit crm.field.created/updated/deleted (data: the definition with
// record_type) in GET /v1/events; record events carry custom_fields; a
// field's deletion sends no record events. Batch upsert matches on a unique
// custom field named by match_on at the top of the body or in an item (the
// item's wins); a field that is not unique is a 422 on match_on (the whole
// batch at the top, the item alone in an item).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/custom_fields/CustomFieldsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::custom_fields;

namespace {

// GET /v1/events?type=<types> as `token` (pages of 100): every event, oldest first.
std::vector<Json> eventsOf(HttpClient& client, const std::string& token, const std::string& types) {
  std::vector<Json> out;
  std::string after;
  for (int page = 0; page < 100; ++page) {
    const Json body =
        getBody(client, token,
                "/v1/events?limit=100&type=" + types + (after.empty() ? "" : "&after=" + after));
    for (const Json& event : body["data"].asArray()) out.push_back(event);
    if (!body["meta"]["has_more"].asBool()) return out;
    after = std::to_string(body["meta"]["next_cursor"].asInt());
  }
  CPPUNIT_FAIL("the event log never ended");
  return out;
}

Json upsertItem(Json data) {
  return Json::object({{"action", "upsert"}, {"data", std::move(data)}});
}

}  // namespace

class CfEventsBatchTest : public CustomFieldsFixture {
  CPPUNIT_TEST_SUITE(CfEventsBatchTest);
  CPPUNIT_TEST(testFieldEvents);
  CPPUNIT_TEST(testFieldEventsOfOtherRecordTypes);
  CPPUNIT_TEST(testRecordEventsCarryCustomFields);
  CPPUNIT_TEST(testDeletingAFieldSendsNoRecordEvents);
  CPPUNIT_TEST(testBatchUpsertMatchesTopLevel);
  CPPUNIT_TEST(testBatchUpsertMatchesPerItem);
  CPPUNIT_TEST(testBatchMatchOnNotUniqueIs422);
  CPPUNIT_TEST(testBatchItemsCarryCustomFields);
  CPPUNIT_TEST_SUITE_END();

 public:
  HttpResult batch(const Json& body) {
    return client_->post(kContacts + "/batch", body, bearer(token_));
  }

  void testFieldEvents() {
    const Json created = define(
        fieldBody("source", "select", Json::object({{"options", optionsOf({"web", "tv"})}})));
    const Json updated =
        E2E_ASSERT_DATA(200, client_->patch(fieldsPath(kContacts, "source"),
                                            Json::object({{"label", "Source"}}), bearer(token_)));
    E2E_ASSERT_DATA(200, client_->del(fieldsPath(kContacts, "source"), bearer(token_)));
    const std::vector<Json> events =
        eventsOf(*client_, token_, "crm.field.created,crm.field.updated,crm.field.deleted");
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), events.size());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.field.created"), events[0]["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.field.updated"), events[1]["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.field.deleted"), events[2]["type"].asString());
    CPPUNIT_ASSERT_EQUAL(canonical(created), canonical(events[0]["data"]));
    CPPUNIT_ASSERT_EQUAL(canonical(updated), canonical(events[1]["data"]));
    // The deleted definition: the last one, with its record type.
    const Json& gone = events[2]["data"];
    CPPUNIT_ASSERT_EQUAL_MESSAGE(gone.dump(), std::string("source"), gone["key"].asString());
    CPPUNIT_ASSERT_EQUAL_MESSAGE(gone.dump(), std::string("contact"),
                                 gone["record_type"].asString());
    CPPUNIT_ASSERT_EQUAL_MESSAGE(gone.dump(), std::string("Source"), gone["label"].asString());
    CPPUNIT_ASSERT_EQUAL_MESSAGE(gone.dump(), std::string("select"), gone["type"].asString());
    for (const Json& event : events) {
      CPPUNIT_ASSERT_EQUAL(std::string("contact"), event["data"]["record_type"].asString());
    }
    // Another company sees none of these.
    const Account other = registerUser(*client_, "cf-events-other");
    CPPUNIT_ASSERT(eventsOf(*client_, other.token, "crm.field.created").empty());
  }

  void testFieldEventsOfOtherRecordTypes() {
    define(fieldBody("headcount", "number"), kCompanies);
    define(fieldBody("channel", "text"), kDeals);
    define(fieldBody("outcome", "text"), kActivities);
    const std::vector<Json> events = eventsOf(*client_, token_, "crm.field.created");
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), events.size());
    CPPUNIT_ASSERT_EQUAL(std::string("company"), events[0]["data"]["record_type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("deal"), events[1]["data"]["record_type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("activity"), events[2]["data"]["record_type"].asString());
  }

  void testRecordEventsCarryCustomFields() {
    define(fieldBody("source", "text"));
    define(fieldBody("score", "number", Json::object({{"default", 3}})));
    const Json created = create(contactWith("Evented", Json::object({{"source", "web"}})));
    const std::string id = created["id"].asString();
    const Json updated = E2E_ASSERT_DATA(
        200, patch(id, Json::object({{"custom_fields", Json::object({{"score", 9}})}})));
    const std::vector<Json> creates = eventsOf(*client_, token_, "crm.contact.created");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), creates.size());
    CF_ASSERT_CUSTOM_FIELDS(R"({"source":"web","score":3})", creates[0]["data"]);
    CPPUNIT_ASSERT_EQUAL(canonical(created), canonical(creates[0]["data"]));
    const std::vector<Json> updates = eventsOf(*client_, token_, "crm.contact.updated");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), updates.size());
    CF_ASSERT_CUSTOM_FIELDS(R"({"source":"web","score":9})", updates[0]["data"]);
    CPPUNIT_ASSERT_EQUAL(canonical(updated), canonical(updates[0]["data"]));
  }

  void testDeletingAFieldSendsNoRecordEvents() {
    define(fieldBody("source", "text"));
    for (int i = 0; i < 3; ++i) {
      create(contactWith("Has " + std::to_string(i), Json::object({{"source", "s"}})));
    }
    const std::size_t before =
        eventsOf(*client_, token_, "crm.contact.updated,crm.contact.deleted").size();
    E2E_ASSERT_DATA(200, client_->del(fieldsPath(kContacts, "source"), bearer(token_)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), before);
    CPPUNIT_ASSERT_EQUAL(
        std::size_t(0),
        eventsOf(*client_, token_, "crm.contact.updated,crm.contact.deleted").size());
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), eventsOf(*client_, token_, "crm.field.deleted").size());
  }

  // match_on at the top: the first upsert creates, the second (another name,
  // the same external id) updates that record; an item without the key is a
  // 422 of its own.
  void testBatchUpsertMatchesTopLevel() {
    define(fieldBody("external_id", "text", Json::object({{"unique", true}})));
    const auto items = [](const std::string& name) {
      return Json::Array{
          upsertItem(contactWith(name, Json::object({{"external_id", "X-1"}}))),
          upsertItem(contactWith(name + " two", Json::object({{"external_id", "X-2"}})))};
    };
    const Json first =
        E2E_ASSERT_DATA(200, batch(Json::object({{"match_on", "custom_fields.external_id"},
                                                 {"items", items("First")}})));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(first.dump(), std::int64_t(201),
                                 first.asArray().at(0)["status"].asInt());
    CPPUNIT_ASSERT_EQUAL_MESSAGE(first.dump(), std::int64_t(201),
                                 first.asArray().at(1)["status"].asInt());
    const Json second =
        E2E_ASSERT_DATA(200, batch(Json::object({{"match_on", "custom_fields.external_id"},
                                                 {"items", items("Second")}})));
    for (std::size_t i = 0; i < 2; ++i) {
      const Json& result = second.asArray().at(i);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(second.dump(), std::int64_t(200), result["status"].asInt());
      CPPUNIT_ASSERT_EQUAL(first.asArray().at(i)["data"]["id"].asString(),
                           result["data"]["id"].asString());
    }
    CPPUNIT_ASSERT_EQUAL(std::string("Second"), second.asArray().at(0)["data"]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), allRecords(*client_, token_, kContacts).size());
    // An upsert whose data lacks the key: that item alone is a 422.
    const Json lacking = E2E_ASSERT_DATA(
        200, batch(Json::object(
                 {{"match_on", "custom_fields.external_id"},
                  {"items", Json::Array{upsertItem(Json::object({{"name", "No key"}})),
                                        upsertItem(contactWith(
                                            "Third", Json::object({{"external_id", "X-3"}})))}}})));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(lacking.dump(), std::int64_t(422),
                                 lacking.asArray().at(0)["status"].asInt());
    CPPUNIT_ASSERT_EQUAL_MESSAGE(lacking.dump(), std::int64_t(201),
                                 lacking.asArray().at(1)["status"].asInt());
  }

  // match_on in an item; the item's wins over the top's.
  void testBatchUpsertMatchesPerItem() {
    define(fieldBody("external_id", "text", Json::object({{"unique", true}})));
    const std::string byEmail =
        create(contactWith("By e-mail", Json::object({{"external_id", "E-1"}}))
                   .set("email", "known@example.com"))["id"]
            .asString();
    Json item = upsertItem(contactWith("Matched", Json::object({{"external_id", "E-1"}})));
    item.set("match_on", "custom_fields.external_id");
    const Json matched = E2E_ASSERT_DATA(200, batch(Json::object({{"items", Json::Array{item}}})));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(matched.dump(), std::int64_t(200),
                                 matched.asArray().at(0)["status"].asInt());
    CPPUNIT_ASSERT_EQUAL(byEmail, matched.asArray().at(0)["data"]["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Matched"), read(byEmail)["name"].asString());
    // The item says email, the top custom_fields.external_id: the e-mail
    // finds the record and its external id changes.
    Json byItem = upsertItem(contactWith("Item wins", Json::object({{"external_id", "E-9"}}))
                                 .set("email", "known@example.com"));
    byItem.set("match_on", "email");
    const Json won =
        E2E_ASSERT_DATA(200, batch(Json::object({{"match_on", "custom_fields.external_id"},
                                                 {"items", Json::Array{byItem}}})));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(won.dump(), std::int64_t(200),
                                 won.asArray().at(0)["status"].asInt());
    CPPUNIT_ASSERT_EQUAL(byEmail, won.asArray().at(0)["data"]["id"].asString());
    CF_ASSERT_CUSTOM_FIELDS(R"({"external_id":"E-9"})", read(byEmail));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), allRecords(*client_, token_, kContacts).size());
  }

  void testBatchMatchOnNotUniqueIs422() {
    define(fieldBody("note", "text"));
    define(fieldBody("external_id", "text", Json::object({{"unique", true}})));
    const Json items = Json::Array{upsertItem(contactWith("A", Json::object({{"note", "n"}})))};
    CF_ASSERT_ERROR_KEY(batch(Json::object({{"match_on", "custom_fields.note"}, {"items", items}})),
                        "match_on");
    CF_ASSERT_ERROR_KEY(batch(Json::object({{"match_on", "custom_fields.nope"}, {"items", items}})),
                        "match_on");
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), allRecords(*client_, token_, kContacts).size());
    // In an item: that item fails alone.
    Json bad = upsertItem(contactWith("Bad", Json::object({{"note", "n"}})));
    bad.set("match_on", "custom_fields.note");
    Json good = upsertItem(contactWith("Good", Json::object({{"external_id", "G-1"}})));
    good.set("match_on", "custom_fields.external_id");
    const Json results =
        E2E_ASSERT_DATA(200, batch(Json::object({{"items", Json::Array{bad, good}}})));
    const Json& failed = results.asArray().at(0);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(results.dump(), std::int64_t(422), failed["status"].asInt());
    CPPUNIT_ASSERT_MESSAGE(results.dump(), failed["errors"].contains("match_on"));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(results.dump(), std::int64_t(201),
                                 results.asArray().at(1)["status"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), allRecords(*client_, token_, kContacts).size());
  }

  // Create and update items validate and answer custom_fields as the
  // requests alone would.
  void testBatchItemsCarryCustomFields() {
    define(fieldBody("score", "number", Json::object({{"default", 1}})));
    const Json results = E2E_ASSERT_DATA(
        200, batch(Json::object(
                 {{"items",
                   Json::Array{
                       Json::object({{"action", "create"},
                                     {"data", contactWith("Default", Json::object())}}),
                       Json::object({{"action", "create"},
                                     {"data", contactWith("Bad", Json::object({{"score", "x"}}))}}),
                       Json::object(
                           {{"action", "create"},
                            {"data", contactWith("Unknown", Json::object({{"nope", 1}}))}})}}})));
    const Json::Array& items = results.asArray();
    CPPUNIT_ASSERT_EQUAL_MESSAGE(results.dump(), std::int64_t(201), items.at(0)["status"].asInt());
    CF_ASSERT_CUSTOM_FIELDS(R"({"score":1})", items.at(0)["data"]);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(results.dump(), std::int64_t(422), items.at(1)["status"].asInt());
    CPPUNIT_ASSERT_MESSAGE(results.dump(), items.at(1)["errors"].contains("custom_fields.score"));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(results.dump(), std::int64_t(422), items.at(2)["status"].asInt());
    CPPUNIT_ASSERT_MESSAGE(results.dump(), items.at(2)["errors"].contains("custom_fields.nope"));
    const std::string id = items.at(0)["data"]["id"].asString();
    const Json updated = E2E_ASSERT_DATA(
        200, batch(Json::object(
                 {{"items", Json::Array{Json::object(
                                {{"action", "update"},
                                 {"id", id},
                                 {"data", Json::object({{"custom_fields",
                                                         Json::object({{"score", 5}})}})}})}}})));
    CF_ASSERT_CUSTOM_FIELDS(R"({"score":5})", updated.asArray().at(0)["data"]);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CfEventsBatchTest);
