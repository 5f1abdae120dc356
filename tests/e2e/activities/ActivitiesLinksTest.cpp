// Activities and the records they relate to (API Activities, Contacts, Deals;
// decisions §7, §11): related_to a contact, a CRM company and a deal, the
// unlinking when that record is deleted, the sub-lists
// GET /crm/contacts/{id}/activities and GET /crm/deals/{id}/activities, and a
// plain member doing everything.
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <latch>
#include <thread>

#include "e2e/activities/ActivitiesSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {
using Ids = std::vector<std::string>;

std::string idOf(const Json& record) {
  return record["id"].asString();
}
}  // namespace

class ActivitiesLinksTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ActivitiesLinksTest);
  CPPUNIT_TEST(testRelatedToEachType);
  CPPUNIT_TEST(testDeletingAContactUnlinksItsActivities);
  CPPUNIT_TEST(testDeletingACompanyUnlinksItsActivities);
  CPPUNIT_TEST(testDeletingADealUnlinksItsActivities);
  CPPUNIT_TEST(testNoDanglingReferenceWhenDeletesRaceCreates);
  CPPUNIT_TEST(testActivitiesOfAContact);
  CPPUNIT_TEST(testActivitiesOfADeal);
  CPPUNIT_TEST(testSubListsOfAbsentParentsAre404);
  CPPUNIT_TEST(testAMemberCanDoEverything);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testRelatedToEachType() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-rel-types");
    const Json contact = createContact(client, account.token, Json::object({{"name", "Ada"}}));
    const Json company = createCrmCompany(client, account.token, Json::object({{"name", "Acme"}}));
    const Json deal = createDeal(client, account.token, "Expansion");
    for (const auto& [type, record] :
         {std::pair<std::string, Json>{"contact", contact}, {"company", company}, {"deal", deal}}) {
      const Json activity = createActivity(
          client, account.token,
          Json::object(
              {{"type", "call"}, {"title", type}, {"related_to", related(type, record["id"])}}));
      CPPUNIT_ASSERT_EQUAL(related(type, record["id"]).dump(), activity["related_to"].dump());
      CPPUNIT_ASSERT_EQUAL(activity.dump(),
                           readActivity(client, account.token, idOf(activity)).dump());
    }
  }

  // Deletes `path` (a contact, company or deal) and checks that the
  // activities related to it lost related_to (updated_at moved, nothing else
  // changed, no activity event) while `untouched` kept theirs.
  void assertUnlinkedBy(const Account& account, const std::string& path,
                        const std::vector<Json>& linked, const std::vector<Json>& untouched) {
    ServerProcess& server = activitiesServer();
    HttpClient client(server.port());
    E2E_ASSERT_DATA(200, client.del(path, bearer(account.token)));
    for (const Json& before : linked) {
      const Json after = readActivity(client, account.token, idOf(before));
      CPPUNIT_ASSERT_MESSAGE(after.dump(), after["related_to"].isNull());
      CPPUNIT_ASSERT(after["updated_at"] != before["updated_at"]);
      Json expected = before;
      expected.set("related_to", Json());
      expected.set("updated_at", after["updated_at"]);
      CPPUNIT_ASSERT_EQUAL(expected.dump(), after.dump());
      CPPUNIT_ASSERT(
          eventsAbout(server, account.companyId, "crm.activity.updated", idOf(before)).empty());
    }
    for (const Json& before : untouched) {
      CPPUNIT_ASSERT_EQUAL(before.dump(), readActivity(client, account.token, idOf(before)).dump());
    }
  }

  void testDeletingAContactUnlinksItsActivities() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-unlink-contact");
    const Account other = registerUser(client, "act-unlink-contact-other");
    const Json doomed = createContact(client, account.token, Json::object({{"name", "Doomed"}}));
    const Json kept = createContact(client, account.token, Json::object({{"name", "Kept"}}));
    const auto add = [&](const Account& who, Json relatedTo) {
      return createActivity(
          client, who.token,
          Json::object({{"type", "call"}, {"title", "T"}, {"related_to", std::move(relatedTo)}}));
    };
    const Json first = add(account, related("contact", doomed["id"]));
    const Json second = add(account, related("contact", doomed["id"]));
    E2E_ASSERT_DATA(200, client.post("/v1/crm/activities/" + idOf(second) + "/complete",
                                     Json::object(), bearer(account.token)));
    const Json secondNow = readActivity(client, account.token, idOf(second));
    const Json elsewhere = add(account, related("contact", kept["id"]));
    const Json unrelated = add(account, Json());
    const Json theirs = add(
        other, related("contact",
                       createContact(client, other.token, Json::object({{"name", "T"}}))["id"]));
    assertUnlinkedBy(account, "/v1/crm/contacts/" + idOf(doomed), {first, secondNow},
                     {elsewhere, unrelated});
    CPPUNIT_ASSERT_EQUAL(theirs.dump(), readActivity(client, other.token, idOf(theirs)).dump());
    // The filter and the sub-list no longer find them.
    const Json filtered =
        getBody(client, account.token,
                "/v1/crm/activities?related_type=contact&related_id=" + idOf(doomed));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), filtered["meta"]["total"].asInt());
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Contact not found.",
        client.get("/v1/crm/contacts/" + idOf(doomed) + "/activities", bearer(account.token)));
    // Relating to the deleted contact again is refused.
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Related record not found.",
        client.patch("/v1/crm/activities/" + idOf(first),
                     Json::object({{"related_to", related("contact", doomed["id"])}}),
                     bearer(account.token)));
  }

  void testDeletingACompanyUnlinksItsActivities() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-unlink-company");
    const Json doomed = createCrmCompany(client, account.token, Json::object({{"name", "Doomed"}}));
    const Json kept = createCrmCompany(client, account.token, Json::object({{"name", "Kept"}}));
    // A contact of the doomed company keeps its own activities.
    const Json contact = createContact(
        client, account.token, Json::object({{"name", "Staff"}, {"company_id", doomed["id"]}}));
    const auto add = [&](Json relatedTo) {
      return createActivity(
          client, account.token,
          Json::object(
              {{"type", "meeting"}, {"title", "T"}, {"related_to", std::move(relatedTo)}}));
    };
    const Json linked = add(related("company", doomed["id"]));
    const Json elsewhere = add(related("company", kept["id"]));
    const Json ofContact = add(related("contact", contact["id"]));
    assertUnlinkedBy(account, "/v1/crm/companies/" + idOf(doomed), {linked},
                     {elsewhere, ofContact});
  }

  void testDeletingADealUnlinksItsActivities() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-unlink-deal");
    const Json doomed = createDeal(client, account.token, "Doomed");
    const Json kept = createDeal(client, account.token, "Kept");
    const auto add = [&](Json relatedTo) {
      return createActivity(
          client, account.token,
          Json::object({{"type", "email"}, {"title", "T"}, {"related_to", std::move(relatedTo)}}));
    };
    const Json linked = add(related("deal", doomed["id"]));
    const Json elsewhere = add(related("deal", kept["id"]));
    assertUnlinkedBy(account, "/v1/crm/deals/" + idOf(doomed), {linked}, {elsewhere});
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Deal not found.",
        client.get("/v1/crm/deals/" + idOf(doomed) + "/activities", bearer(account.token)));
  }

  // Creates of activities related to contacts race the deletes of those
  // contacts (records.h, lockForReference): each create answers 201 or 404,
  // and once every contact is gone no activity still points at one.
  void testNoDanglingReferenceWhenDeletesRaceCreates() {
    ServerProcess& server = activitiesServer();
    HttpClient setup(server.port());
    const Account account = registerUser(setup, "act-race");
    std::vector<std::string> contacts;
    for (int i = 0; i < 30; ++i) {
      contacts.push_back(idOf(createContact(
          setup, account.token, Json::object({{"name", "Racer " + std::to_string(i)}}))));
    }
    std::latch start(2);
    std::vector<int> createStatuses;
    std::vector<int> deleteStatuses;
    std::thread creator([&] {
      HttpClient client(server.port());
      start.arrive_and_wait();
      for (const std::string& contact : contacts) {
        createStatuses.push_back(
            client
                .post("/v1/crm/activities",
                      Json::object({{"type", "call"},
                                    {"title", "Race"},
                                    {"related_to", related("contact", contact)}}),
                      bearer(account.token))
                .status);
      }
    });
    std::thread deleter([&] {
      HttpClient client(server.port());
      start.arrive_and_wait();
      for (const std::string& contact : contacts) {
        deleteStatuses.push_back(
            client.del("/v1/crm/contacts/" + contact, bearer(account.token)).status);
      }
    });
    creator.join();
    deleter.join();
    for (const int status : deleteStatuses) CPPUNIT_ASSERT_EQUAL(200, status);
    for (const int status : createStatuses) {
      CPPUNIT_ASSERT_MESSAGE(std::to_string(status), status == 201 || status == 404);
    }
    const Json all = getBody(setup, account.token, "/v1/crm/activities?per_page=100");
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t(std::count(createStatuses.begin(), createStatuses.end(), 201)),
        all["meta"]["total"].asInt());
    for (const Json& activity : all["data"].asArray()) {
      CPPUNIT_ASSERT_MESSAGE(activity.dump(), activity["related_to"].isNull());
    }
    const auto dangling = queryDatabase(
        server.databaseUrl(), "SELECT COUNT(*) FROM activities WHERE company_id = " +
                                  sqlQuote(account.companyId) + " AND related_type IS NOT NULL");
    CPPUNIT_ASSERT_EQUAL(std::string("0"), dangling.at(0).at(0));
  }

  void testActivitiesOfAContact() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-sub-contact");
    const std::string& token = account.token;
    const Json ada = createContact(client, token, Json::object({{"name", "Ada"}}));
    const Json bob = createContact(client, token, Json::object({{"name", "Bob"}}));
    const auto add = [&](const std::string& type, const std::string& title, Json relatedTo) {
      return createActivity(
          client, token,
          Json::object({{"type", type}, {"title", title}, {"related_to", std::move(relatedTo)}}));
    };
    const Json zed = add("call", "zed", related("contact", ada["id"]));
    const Json amy = add("meeting", "Amy", related("contact", ada["id"]));
    add("call", "bob's", related("contact", bob["id"]));
    const Json max = add("call", "max", related("contact", ada["id"]));
    add("call", "free", Json());

    const std::string path = "/v1/crm/contacts/" + idOf(ada) + "/activities";
    Json body = getBody(client, token, path);
    CPPUNIT_ASSERT(idsOf(body) == (Ids{idOf(max), idOf(amy), idOf(zed)}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":3,"last_page":1})"),
                         body["meta"].dump());
    // Full activities, as GET returns them.
    CPPUNIT_ASSERT_EQUAL(zed.dump(), body["data"].asArray().back().dump());
    // The list's query applies inside the contact.
    body = getBody(client, token, path + "?sort=title&per_page=2");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{idOf(amy), idOf(max)}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":2,"total":3,"last_page":2})"),
                         body["meta"].dump());
    CPPUNIT_ASSERT(idsOf(getBody(client, token, path + "?type=call")) ==
                   (Ids{idOf(max), idOf(zed)}));
    CPPUNIT_ASSERT(idsOf(getBody(client, token, path + "?search=am")) == (Ids{idOf(amy)}));
    E2E_ASSERT_DATA(200, client.post("/v1/crm/activities/" + idOf(zed) + "/complete",
                                     Json::object(), bearer(token)));
    CPPUNIT_ASSERT(idsOf(getBody(client, token, path + "?status=completed")) == (Ids{idOf(zed)}));
    // The path's contact wins over related_type / related_id in the query.
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t(3),
        getBody(client, token,
                path + "?related_type=contact&related_id=" + idOf(bob))["meta"]["total"]
            .asInt());
    const Json page = getBody(client, token, path + "?page=4");
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), page["data"].dump());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), page["meta"]["total"].asInt());
    CRM_ASSERT_FIELD_ERROR(client.get(path + "?sort=statuses", bearer(token)), "sort", "");
    CRM_ASSERT_FIELD_ERROR(client.get(path + "?type=lunch", bearer(token)), "type", "");
    CRM_ASSERT_FIELD_ERROR(client.get(path + "?per_page=101", bearer(token)), "per_page", "");
    // A contact without activities.
    const Json none = getBody(
        client, token,
        "/v1/crm/contacts/" +
            idOf(createContact(client, token, Json::object({{"name", "Quiet"}}))) + "/activities");
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":0,"last_page":1})"),
                         none["meta"].dump());
  }

  void testActivitiesOfADeal() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-sub-deal");
    const std::string& token = account.token;
    const Json deal = createDeal(client, token, "Main");
    const Json otherDeal = createDeal(client, token, "Side");
    const auto add = [&](const std::string& title, Json relatedTo, Json scheduledAt) {
      return createActivity(client, token,
                            Json::object({{"type", "task"},
                                          {"title", title},
                                          {"related_to", std::move(relatedTo)},
                                          {"scheduled_at", std::move(scheduledAt)}}));
    };
    const Json late = add("late", related("deal", deal["id"]), "2027-02-01T00:00:00Z");
    const Json early = add("early", related("deal", deal["id"]), "2027-01-01T00:00:00Z");
    add("side", related("deal", otherDeal["id"]), "2027-01-15T00:00:00Z");
    const std::string path = "/v1/crm/deals/" + idOf(deal) + "/activities";
    Json body = getBody(client, token, path);
    CPPUNIT_ASSERT(idsOf(body) == (Ids{idOf(early), idOf(late)}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), body["meta"]["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(late.dump(), body["data"].asArray().back().dump());
    body = getBody(client, token, path + "?sort=scheduled_at");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{idOf(early), idOf(late)}));
    body = getBody(client, token, path + "?scheduled_from=2027-01-10T00:00:00Z");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{idOf(late)}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), body["meta"]["total"].asInt());
  }

  void testSubListsOfAbsentParentsAre404() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-sub-404");
    const Account other = registerUser(client, "act-sub-404-other");
    const Json theirContact = createContact(client, other.token, Json::object({{"name", "T"}}));
    const Json theirDeal = createDeal(client, other.token, "Theirs");
    createActivity(client, other.token,
                   Json::object({{"type", "call"},
                                 {"title", "Hidden"},
                                 {"related_to", related("contact", theirContact["id"])}}));
    const Json mine = createContact(client, account.token, Json::object({{"name", "Mine"}}));
    const Json myDeal = createDeal(client, account.token, "Mine");
    for (const std::string& id :
         {std::string("cont_missing"), idOf(theirContact), idOf(myDeal), account.companyId}) {
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Contact not found.",
          client.get("/v1/crm/contacts/" + id + "/activities", bearer(account.token)));
    }
    for (const std::string& id :
         {std::string("deal_missing"), idOf(theirDeal), idOf(mine), account.companyId}) {
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Deal not found.",
          client.get("/v1/crm/deals/" + id + "/activities", bearer(account.token)));
    }
  }

  void testAMemberCanDoEverything() {
    ServerProcess& server = activitiesServer();
    HttpClient client(server.port());
    const Account owner = registerUser(client, "act-member-owner");
    const Account member = addMember(client, owner, "member", "act-member");
    const std::string& token = member.token;
    const Json contact = createContact(client, token, Json::object({{"name", "Ada"}}));
    const Json deal = createDeal(client, owner.token, "Owner's deal");
    // Create, with every reference checked in the shared company.
    const Json activity =
        createActivity(client, token,
                       Json::object({{"type", "call"},
                                     {"title", "Member's call"},
                                     {"owner_id", owner.userId},
                                     {"related_to", related("contact", contact["id"])}}));
    const std::string id = idOf(activity);
    const std::string path = "/v1/crm/activities/" + id;
    CPPUNIT_ASSERT_EQUAL(activity.dump(), readActivity(client, owner.token, id).dump());
    CPPUNIT_ASSERT(idsOf(getBody(client, token, "/v1/crm/activities")) == (Ids{id}));
    CPPUNIT_ASSERT(
        idsOf(getBody(client, token, "/v1/crm/contacts/" + idOf(contact) + "/activities")) ==
        (Ids{id}));
    const Json moved =
        E2E_ASSERT_DATA(200, client.patch(path,
                                          Json::object({{"related_to", related("deal", deal["id"])},
                                                        {"owner_id", member.userId}}),
                                          bearer(token)));
    CPPUNIT_ASSERT_EQUAL(related("deal", deal["id"]).dump(), moved["related_to"].dump());
    CPPUNIT_ASSERT(idsOf(getBody(client, token, "/v1/crm/deals/" + idOf(deal) + "/activities")) ==
                   (Ids{id}));
    E2E_ASSERT_DATA(200, client.post(path + "/complete", Json::object(), bearer(token)));
    E2E_ASSERT_DATA(200, client.post(path + "/reopen", Json::object(), bearer(token)));
    E2E_ASSERT_DATA(200, client.del(path, bearer(token)));
    CPPUNIT_ASSERT((activityEvents(server, owner.companyId) ==
                    Ids{"crm.activity.created " + id, "crm.activity.updated " + id,
                        "crm.activity.completed " + id, "crm.activity.updated " + id,
                        "crm.activity.deleted " + id}));
    // A removed member's token stops working here.
    E2E_ASSERT_STATUS(200, client.del("/v1/company/members/" + member.userId, bearer(owner.token)));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/activities", bearer(token)));
    E2E_ASSERT_ERROR(
        401, client.post("/v1/crm/activities", Json::object({{"type", "call"}, {"title", "x"}}),
                         bearer(token)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ActivitiesLinksTest);
