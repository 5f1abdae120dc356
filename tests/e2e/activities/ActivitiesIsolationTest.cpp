// Two companies side by side (decisions §1, §7): another tenant's activity,
// and every record an activity refers to, answers exactly like a missing one
// on every route, sub-list, filter and reference.
#include <cppunit/extensions/HelperMacros.h>

#include <functional>
#include <tuple>

#include "e2e/activities/ActivitiesSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {
std::string idOf(const Json& record) {
  return record["id"].asString();
}

// The answer without its per-request parts (X-Request-Id, rate-limit headers):
// status and body, which must be identical for a missing and a foreign id.
std::string essence(const HttpResult& result) {
  return std::to_string(result.status) + " " + result.body;
}
}  // namespace

class ActivitiesIsolationTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ActivitiesIsolationTest);
  CPPUNIT_TEST(testAnotherTenantsActivityIsMissing);
  CPPUNIT_TEST(testListsShowOnlyTheTenantsActivities);
  CPPUNIT_TEST(testReferencesToAnotherTenantAreMissing);
  CPPUNIT_TEST(testOneCompanyOfAUserDoesNotSeeTheOther);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testAnotherTenantsActivityIsMissing() {
    HttpClient client(activitiesServer().port());
    const Account mine = registerUser(client, "act-iso-mine");
    const Account theirs = registerUser(client, "act-iso-theirs");
    const Json activity = createCall(client, theirs.token, "Private");
    const std::string foreign = "/v1/crm/activities/" + idOf(activity);
    const std::string missing = "/v1/crm/activities/act_doesnotexist";
    const Headers auth = bearer(mine.token);
    const auto both = [&](const std::function<HttpResult(const std::string&)>& call) {
      const HttpResult a = call(foreign);
      const HttpResult b = call(missing);
      CRM_ASSERT_ERROR_MESSAGE(404, "Activity not found.", a);
      CPPUNIT_ASSERT_EQUAL(essence(b), essence(a));
    };
    both([&](const std::string& p) { return client.get(p, auth); });
    both([&](const std::string& p) {
      return client.patch(p, Json::object({{"title", "Mine now"}}), auth);
    });
    both([&](const std::string& p) { return client.post(p + "/complete", Json::object(), auth); });
    both([&](const std::string& p) { return client.post(p + "/reopen", Json::object(), auth); });
    both([&](const std::string& p) { return client.del(p, auth); });
    // Untouched, and still theirs.
    CPPUNIT_ASSERT_EQUAL(activity.dump(),
                         readActivity(client, theirs.token, idOf(activity)).dump());
  }

  void testListsShowOnlyTheTenantsActivities() {
    HttpClient client(activitiesServer().port());
    const Account mine = registerUser(client, "act-iso-list");
    const Account theirs = registerUser(client, "act-iso-list-theirs");
    const Json contact =
        createContact(client, theirs.token, Json::object({{"name", "Shared name"}}));
    const Json deal = createDeal(client, theirs.token, "Theirs");
    const Json toContact =
        createActivity(client, theirs.token,
                       Json::object({{"type", "call"},
                                     {"title", "Shared title"},
                                     {"owner_id", theirs.userId},
                                     {"scheduled_at", "2026-12-01T00:00:00Z"},
                                     {"related_to", related("contact", contact["id"])}}));
    createActivity(client, theirs.token,
                   Json::object({{"type", "call"},
                                 {"title", "Shared title"},
                                 {"related_to", related("deal", deal["id"])}}));
    const Json own = createCall(client, mine.token, "Shared title");
    for (const std::string& query : std::vector<std::string>{
             "", "?search=shared", "?type=call", "?status=pending", "?owner_id=" + theirs.userId,
             "?related_type=contact", "?related_type=contact&related_id=" + idOf(contact),
             "?related_type=deal&related_id=" + idOf(deal), "?scheduled_to=2027-01-01T00:00:00Z",
             "?sort=title"}) {
      const Json body = getBody(client, mine.token, "/v1/crm/activities" + query);
      for (const std::string& id : idsOf(body)) {
        CPPUNIT_ASSERT_MESSAGE(query, id == idOf(own));
      }
      CPPUNIT_ASSERT_MESSAGE(query, body["meta"]["total"].asInt() <= 1);
    }
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t(2),
        getBody(client, theirs.token, "/v1/crm/activities")["meta"]["total"].asInt());
    // Their contact's and deal's sub-lists do not exist for me.
    const HttpResult contactList =
        client.get("/v1/crm/contacts/" + idOf(contact) + "/activities", bearer(mine.token));
    CRM_ASSERT_ERROR_MESSAGE(404, "Contact not found.", contactList);
    CPPUNIT_ASSERT_EQUAL(
        essence(client.get("/v1/crm/contacts/cont_none/activities", bearer(mine.token))),
        essence(contactList));
    const HttpResult dealList =
        client.get("/v1/crm/deals/" + idOf(deal) + "/activities", bearer(mine.token));
    CRM_ASSERT_ERROR_MESSAGE(404, "Deal not found.", dealList);
    CPPUNIT_ASSERT_EQUAL(
        essence(client.get("/v1/crm/deals/deal_none/activities", bearer(mine.token))),
        essence(dealList));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), getBody(client, theirs.token,
                                                  "/v1/crm/contacts/" + idOf(contact) +
                                                      "/activities")["meta"]["total"]
                                              .asInt());
    (void)toContact;
  }

  void testReferencesToAnotherTenantAreMissing() {
    HttpClient client(activitiesServer().port());
    const Account mine = registerUser(client, "act-iso-ref");
    const Account theirs = registerUser(client, "act-iso-ref-theirs");
    const Json contact = createContact(client, theirs.token, Json::object({{"name", "C"}}));
    const Json company = createCrmCompany(client, theirs.token, Json::object({{"name", "Co"}}));
    const Json deal = createDeal(client, theirs.token, "D");
    const Json activity = createCall(client, mine.token, "Mine");
    const std::string path = "/v1/crm/activities/" + idOf(activity);
    const auto post = [&](Json extra) {
      Json body = Json::object({{"type", "call"}, {"title", "T"}});
      for (auto& [key, value] : extra.asObject()) body.set(key, value);
      return client.post("/v1/crm/activities", body, bearer(mine.token));
    };
    const auto patch = [&](Json body) { return client.patch(path, body, bearer(mine.token)); };
    for (const auto& [type, id, absent] :
         {std::tuple<std::string, std::string, std::string>{"contact", idOf(contact), "cont_none"},
          {"company", idOf(company), "comp_none"},
          {"deal", idOf(deal), "deal_none"}}) {
      for (const auto& send :
           {std::function<HttpResult(Json)>(post), std::function<HttpResult(Json)>(patch)}) {
        const HttpResult foreign = send(Json::object({{"related_to", related(type, id)}}));
        CRM_ASSERT_ERROR_MESSAGE(404, "Related record not found.", foreign);
        CPPUNIT_ASSERT_EQUAL(essence(send(Json::object({{"related_to", related(type, absent)}}))),
                             essence(foreign));
      }
    }
    for (const auto& send :
         {std::function<HttpResult(Json)>(post), std::function<HttpResult(Json)>(patch)}) {
      const HttpResult foreign = send(Json::object({{"owner_id", theirs.userId}}));
      CRM_ASSERT_ERROR_MESSAGE(404, "Owner not found.", foreign);
      CPPUNIT_ASSERT_EQUAL(essence(send(Json::object({{"owner_id", "user_none"}}))),
                           essence(foreign));
    }
    CPPUNIT_ASSERT_EQUAL(activity.dump(), readActivity(client, mine.token, idOf(activity)).dump());
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t(1),
        getBody(client, mine.token, "/v1/crm/activities")["meta"]["total"].asInt());
  }

  void testOneCompanyOfAUserDoesNotSeeTheOther() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-iso-switch");
    const Json first = createCall(client, account.token, "First company");
    const std::string second = createCompany(client, account.token, "Second");
    const std::string token = switchContext(client, account.token, second);
    CRM_ASSERT_ERROR_MESSAGE(404, "Activity not found.",
                             client.get("/v1/crm/activities/" + idOf(first), bearer(token)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0),
                         getBody(client, token, "/v1/crm/activities")["meta"]["total"].asInt());
    const Json there = createActivity(
        client, token,
        Json::object(
            {{"type", "note"}, {"title", "Second company"}, {"owner_id", account.userId}}));
    CPPUNIT_ASSERT(idsOf(getBody(client, token, "/v1/crm/activities")) ==
                   std::vector<std::string>{idOf(there)});
    // A company header changes nothing: the token decides.
    CPPUNIT_ASSERT(
        idsOf(getBody(client, account.token, "/v1/crm/activities", {{"X-Company-Id", second}})) ==
        std::vector<std::string>{idOf(first)});
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ActivitiesIsolationTest);
