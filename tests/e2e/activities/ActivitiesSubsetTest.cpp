// Activities with only the contacts module beside them (decisions §11):
// related_to a deal or a company is 422, their sub-list and filters are
// refused, /crm/deals/{id}/activities does not exist, everything else works.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/activities/ActivitiesSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

class ActivitiesSubsetTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ActivitiesSubsetTest);
  CPPUNIT_TEST(testContactsAndActivitiesOnly);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testContactsAndActivitiesOnly() {
    ServerProcess server(crmSettings("contacts,activities"));
    HttpClient client(server.port());
    const Account account = registerUser(client, "act-subset");
    const std::string& token = account.token;
    const auto post = [&](Json relatedTo) {
      return client.post(
          "/v1/crm/activities",
          Json::object({{"type", "call"}, {"title", "T"}, {"related_to", std::move(relatedTo)}}),
          bearer(token));
    };
    CRM_ASSERT_FIELD_ERROR(
        post(related("deal", "deal_x")), "related_to.type",
        "The related type deal is not available: the deals module is not enabled.");
    CRM_ASSERT_FIELD_ERROR(
        post(related("company", "comp_x")), "related_to.type",
        "The related type company is not available: the companies module is not enabled.");
    CRM_ASSERT_FIELD_ERROR(
        client.get("/v1/crm/activities?related_type=deal", bearer(token)), "related_type",
        "The related type deal is not available: the deals module is not enabled.");
    CRM_ASSERT_FIELD_ERROR(
        client.get("/v1/crm/activities?related_type=company&related_id=comp_x", bearer(token)),
        "related_type",
        "The related type company is not available: the companies module is not enabled.");
    // The deals sub-list and the deals and companies routes do not exist.
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/deals/deal_x/activities", bearer(token)));
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/deals", bearer(token)));
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/companies", bearer(token)));

    // Everything else works: contacts, their activities, the life cycle.
    const Json contact = createContact(client, token, Json::object({{"name", "Ada"}}));
    CRM_ASSERT_ERROR_MESSAGE(404, "Related record not found.",
                             post(related("contact", "cont_missing")));
    const Json activity = E2E_ASSERT_DATA(201, post(related("contact", contact["id"])));
    const Json plain = createCall(client, token, "Plain");
    const std::string id = activity["id"].asString();
    const std::string path = "/v1/crm/activities/" + id;
    CPPUNIT_ASSERT_EQUAL(activity.dump(), readActivity(client, token, id).dump());
    CPPUNIT_ASSERT(idsOf(getBody(client, token,
                                 "/v1/crm/contacts/" + contact["id"].asString() + "/activities")) ==
                   std::vector<std::string>{id});
    CPPUNIT_ASSERT(idsOf(getBody(client, token, "/v1/crm/activities?related_type=contact")) ==
                   std::vector<std::string>{id});
    CRM_ASSERT_FIELD_ERROR(
        client.patch(path, Json::object({{"related_to", related("deal", "deal_x")}}),
                     bearer(token)),
        "related_to.type",
        "The related type deal is not available: the deals module is not enabled.");
    E2E_ASSERT_DATA(200, client.patch(path, Json::object({{"title", "Renamed"}}), bearer(token)));
    E2E_ASSERT_DATA(200, client.post(path + "/complete", Json::object(), bearer(token)));
    E2E_ASSERT_DATA(200, client.post(path + "/reopen", Json::object(), bearer(token)));
    const Json list = getBody(client, token, "/v1/crm/activities?sort=title");
    CPPUNIT_ASSERT((idsOf(list) == std::vector<std::string>{plain["id"].asString(), id}));
    // Deleting the contact still unlinks its activities.
    E2E_ASSERT_DATA(200, client.del("/v1/crm/contacts/" + contact["id"].asString(), bearer(token)));
    CPPUNIT_ASSERT(readActivity(client, token, id)["related_to"].isNull());
    E2E_ASSERT_DATA(200, client.del(path, bearer(token)));
    CRM_ASSERT_ERROR_MESSAGE(404, "Activity not found.", client.get(path, bearer(token)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ActivitiesSubsetTest);
