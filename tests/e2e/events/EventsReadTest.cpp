// GET /v1/events: the company's event log after a cursor, in sequence
// order, paged by `limit` with has_more and next_cursor, filtered by type,
// for owners and admins only, never another company's events.
#include <cppunit/extensions/HelperMacros.h>

#include <set>

#include "e2e/events/EventsSuite.h"

namespace rapport::e2e::events {

class EventsReadTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(EventsReadTest);
  CPPUNIT_TEST(testPagesAfterCursor);
  CPPUNIT_TEST(testEventShape);
  CPPUNIT_TEST(testTypeFilter);
  CPPUNIT_TEST(testInvalidQuery);
  CPPUNIT_TEST(testRoles);
  CPPUNIT_TEST(testOtherCompanyNeverVisible);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testPagesAfterCursor() {
    HttpClient client(eventsServer().port());
    const Account owner = registerUser(client, "events-pages");
    std::vector<std::string> created;
    for (int i = 0; i < 5; ++i) {
      created.push_back(createContact(client, owner.token,
                                      Json::object({{"name", "P" + std::to_string(i)}}))["id"]
                            .asString());
    }
    const std::string kType = "type=crm.contact.created";
    // Page 1 of 2 events: more follow, the cursor is the last sequence.
    const Json first = readEvents(client, owner.token, kType + "&limit=2");
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, first["data"].asArray().size());
    CPPUNIT_ASSERT(first["meta"]["has_more"].asBool());
    CPPUNIT_ASSERT_EQUAL(first["data"].asArray()[1]["sequence"].asInt(),
                         first["meta"]["next_cursor"].asInt());
    // Reading on from each cursor gives every event once, in sequence order.
    const std::vector<Json> paged = allEvents(client, owner.token, "crm.contact.created", 2);
    CPPUNIT_ASSERT(created == recordIds(paged));
    for (std::size_t i = 1; i < paged.size(); ++i) {
      CPPUNIT_ASSERT(paged[i - 1]["sequence"].asInt() < paged[i]["sequence"].asInt());
    }
    // The last page: has_more false; after it, nothing, and the cursor stays.
    const std::int64_t last = paged.back()["sequence"].asInt();
    const Json tail =
        readEvents(client, owner.token,
                   kType + "&limit=2&after=" + std::to_string(paged[3]["sequence"].asInt()));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, tail["data"].asArray().size());
    CPPUNIT_ASSERT(!tail["meta"]["has_more"].asBool());
    CPPUNIT_ASSERT_EQUAL(last, tail["meta"]["next_cursor"].asInt());
    const Json empty = readEvents(client, owner.token, "after=" + std::to_string(last + 100));
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, empty["data"].asArray().size());
    CPPUNIT_ASSERT(!empty["meta"]["has_more"].asBool());
    CPPUNIT_ASSERT_EQUAL(last + 100, empty["meta"]["next_cursor"].asInt());
    // The default page is 50, and exactly 5 pages of 1 hold the 5 events.
    CPPUNIT_ASSERT_EQUAL(std::size_t{5},
                         allEvents(client, owner.token, "crm.contact.created", 1).size());
  }

  void testEventShape() {
    HttpClient client(eventsServer().port());
    const Account owner = registerUser(client, "events-shape");
    const HttpResult created =
        client.post("/v1/crm/contacts", Json::object({{"name", "Shape"}}), bearer(owner.token));
    const Json contact = E2E_ASSERT_DATA(201, created);
    const Json got = E2E_ASSERT_DATA(
        200, client.get("/v1/crm/contacts/" + contact["id"].asString(), bearer(owner.token)));
    const Json event =
        readEvents(client, owner.token, "type=crm.contact.created")["data"].asArray()[0];
    CPPUNIT_ASSERT_EQUAL(std::string("evt_"), event["id"].asString().substr(0, 4));
    CPPUNIT_ASSERT(event["sequence"].asInt() >= 1);
    CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.created"), event["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("contacts"), event["module"].asString());
    CPPUNIT_ASSERT_EQUAL(created.header("X-Request-Id"), event["request_id"].asString());
    E2E_ASSERT_ISO_UTC(event["created_at"]);
    CPPUNIT_ASSERT_EQUAL(got.dump(), event["data"].dump());
  }

  void testTypeFilter() {
    HttpClient client(eventsServer().port());
    const Account owner = registerUser(client, "events-types");
    const std::string contact =
        createContact(client, owner.token, Json::object({{"name", "C"}}))["id"].asString();
    const std::string company =
        createCrmCompany(client, owner.token, Json::object({{"name", "Co"}}))["id"].asString();
    CPPUNIT_ASSERT(std::vector<std::string>{company} ==
                   recordIds(allEvents(client, owner.token, "crm.company.created")));
    CPPUNIT_ASSERT(std::vector<std::string>{contact} ==
                   recordIds(allEvents(client, owner.token, "crm.contact.created")));
    // Comma-separated: either type, in log order.
    CPPUNIT_ASSERT(
        (std::vector<std::string>{contact, company}) ==
        recordIds(allEvents(client, owner.token, "crm.company.created,crm.contact.created")));
    CPPUNIT_ASSERT(allEvents(client, owner.token, "crm.deal.created").empty());
  }

  void testInvalidQuery() {
    HttpClient client(eventsServer().port());
    const Account owner = registerUser(client, "events-invalid");
    auto get = [&](const std::string& query) {
      return client.get("/v1/events?" + query, bearer(owner.token));
    };
    CRM_ASSERT_FIELD_ERROR(get("type=crm.nothing.happened"), "type",
                           "The type 'crm.nothing.happened' is not a known event type.");
    CRM_ASSERT_FIELD_ERROR(get("type=crm.contact.created,crm.nope"), "type",
                           "The type 'crm.nope' is not a known event type.");
    CRM_ASSERT_FIELD_ERROR(get("type=,"), "type", "The type must name at least one event type.");
    for (const char* after : {"after=-1", "after=x", "after=1.5", "after="}) {
      CRM_ASSERT_FIELD_ERROR(get(after), "after", "The after must be an integer of at least 0.");
    }
    for (const char* limit : {"limit=0", "limit=101", "limit=ten"}) {
      CRM_ASSERT_FIELD_ERROR(get(limit), "limit",
                             "The limit must be an integer between 1 and 100.");
    }
    // The bounds themselves are accepted.
    E2E_ASSERT_DATA(200, get("limit=100&after=0"));
    E2E_ASSERT_DATA(200, get("limit=1"));
  }

  void testRoles() {
    HttpClient client(eventsServer().port());
    const Account owner = registerUser(client, "events-roles");
    createContact(client, owner.token, Json::object({{"name", "R"}}));
    const Account admin = joinAs(client, owner, "admin", "events-admin");
    const Account member = joinAs(client, owner, "member", "events-member");
    CPPUNIT_ASSERT_EQUAL(std::size_t{1},
                         allEvents(client, admin.token, "crm.contact.created").size());
    E2E_ASSERT_ERROR(403, client.get("/v1/events", bearer(member.token)));
    E2E_ASSERT_ERROR(401, client.get("/v1/events"));
    E2E_ASSERT_ERROR(401, client.get("/v1/events", bearer("not-a-token")));
  }

  void testOtherCompanyNeverVisible() {
    HttpClient client(eventsServer().port());
    const Account a = registerUser(client, "events-a");
    const Account b = registerUser(client, "events-b");
    const std::string ofA =
        createContact(client, a.token, Json::object({{"name", "A"}}))["id"].asString();
    const std::string ofB =
        createContact(client, b.token, Json::object({{"name", "B"}}))["id"].asString();
    std::set<std::string> seenByA;
    for (const Json& event : allEvents(client, a.token)) {
      seenByA.insert(event["data"]["id"].isString() ? event["data"]["id"].asString() : "");
    }
    CPPUNIT_ASSERT(seenByA.count(ofA) == 1);
    CPPUNIT_ASSERT(seenByA.count(ofB) == 0);
    CPPUNIT_ASSERT(std::vector<std::string>{ofB} ==
                   recordIds(allEvents(client, b.token, "crm.contact.created")));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(EventsReadTest);

}  // namespace rapport::e2e::events
