// What an event carries (decisions §8: "Event data is the record as GET
// returns it. Deleted records: {id}. crm.deal.stage_changed adds
// previous_stage_id"; API Envelope: a won deal carries id, title, value,
// currency, pipeline_id, stage_id, contact_id, company_id, won_at): for every
// event type of the CRM modules, the delivered envelope's data equals GET of
// the record right after the change.
#include <cppunit/extensions/HelperMacros.h>

#include <set>

#include "e2e/webhooks/WebhooksSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::webhooks;

namespace {

const Json kEveryCrmEvent = eventsList({
    "crm.contact.created",
    "crm.contact.updated",
    "crm.contact.deleted",
    "crm.company.created",
    "crm.company.updated",
    "crm.company.deleted",
    "crm.deal.created",
    "crm.deal.updated",
    "crm.deal.stage_changed",
    "crm.deal.won",
    "crm.deal.lost",
    "crm.deal.deleted",
    "crm.activity.created",
    "crm.activity.updated",
    "crm.activity.completed",
    "crm.activity.deleted",
});

// Records the (event, data) each change should deliver, reading the record
// back with GET right after the change.
class Script {
 public:
  Script(HttpClient& client, std::string token) : client_(client), token_(std::move(token)) {}

  Json get(const std::string& path) {
    return E2E_ASSERT_DATA(200, client_.get(path, bearer(token_)));
  }
  // A change through `result` (asserting `status`) whose event carries GET `path`.
  Json expect(const std::string& event, const HttpResult& result, int status,
              const std::string& path, const Json& extra = Json::object()) {
    E2E_ASSERT_DATA(status, result);
    Json data = get(path);
    for (const auto& [key, value] : extra.asObject()) data.set(key, value);
    add(event, data);
    return data;
  }
  // A deletion: {id}, and GET answers 404 afterwards.
  void expectDeleted(const std::string& event, const std::string& path, const std::string& id) {
    E2E_ASSERT_STATUS(200, client_.del(path, bearer(token_)));
    E2E_ASSERT_ERROR(404, client_.get(path, bearer(token_)));
    add(event, Json::object({{"id", id}}));
  }
  void add(const std::string& event, const Json& data) {
    expected_.insert(eventKey(event, data));
    types_.insert(event);
  }

  const std::multiset<std::string>& expected() const { return expected_; }
  const std::set<std::string>& types() const { return types_; }

 private:
  HttpClient& client_;
  std::string token_;
  std::multiset<std::string> expected_;
  std::set<std::string> types_;
};

}  // namespace

class WebhooksEventDataTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(WebhooksEventDataTest);
  CPPUNIT_TEST(testEveryCrmEventCarriesWhatGetReturns);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEveryCrmEventCarriesWhatGetReturns() {
    Receiver receiver;
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "event-data");
    const Headers auth = bearer(account.token);
    const Json webhook = createWebhook(client, account.token, receiver.url("/all"), kEveryCrmEvent);
    Script script(client, account.token);

    // Contacts and companies.
    const Json company = createCrmCompany(client, account.token,
                                          Json::object({{"name", "Acme"},
                                                        {"industry", "Rockets"},
                                                        {"annual_revenue", 1200000},
                                                        {"tags", eventsList({"vip"})}}));
    const std::string companyPath = "/v1/crm/companies/" + company["id"].asString();
    script.add("crm.company.created", script.get(companyPath));
    const Json contact = createContact(client, account.token,
                                       Json::object({{"name", "Ada"},
                                                     {"email", uniqueEmail("ada")},
                                                     {"company_id", company["id"]},
                                                     {"owner_id", account.userId},
                                                     {"tags", eventsList({"lead", "warm"})}}));
    const std::string contactPath = "/v1/crm/contacts/" + contact["id"].asString();
    script.add("crm.contact.created", script.get(contactPath));
    script.expect(
        "crm.contact.updated",
        client.patch(contactPath, Json::object({{"job_title", "CTO"}, {"notes", "Met."}}), auth),
        200, contactPath);
    script.expect("crm.company.updated",
                  client.patch(companyPath, Json::object({{"website", "https://acme.test"}}), auth),
                  200, companyPath);

    // Deals: create, update, stage move, win; another lost then reopened.
    const Json pipeline = create(
        client, account.token, "/v1/crm/pipelines",
        Json::object(
            {{"name", "Sales"},
             {"stages", Json::Array{Json::object({{"name", "Lead"}, {"probability", 10}}),
                                    Json::object({{"name", "Won?"}, {"probability", 80}})}}}));
    const std::string lead = pipeline["stages"].asArray().at(0)["id"].asString();
    const std::string late = pipeline["stages"].asArray().at(1)["id"].asString();
    const Json deal = create(client, account.token, "/v1/crm/deals",
                             Json::object({{"title", "Big one"},
                                           {"pipeline_id", pipeline["id"]},
                                           {"stage_id", lead},
                                           {"value", 500000},
                                           {"contact_id", contact["id"]},
                                           {"company_id", company["id"]},
                                           {"expected_close_date", "2027-01-31"}}));
    const std::string dealPath = "/v1/crm/deals/" + deal["id"].asString();
    script.add("crm.deal.created", script.get(dealPath));
    script.expect("crm.deal.updated",
                  client.patch(dealPath, Json::object({{"title", "Bigger one"}}), auth), 200,
                  dealPath);
    script.expect("crm.deal.stage_changed",
                  client.patch(dealPath + "/stage", Json::object({{"stage_id", late}}), auth), 200,
                  dealPath, Json::object({{"previous_stage_id", lead}}));
    const Json won = script.expect(
        "crm.deal.won",
        client.post(dealPath + "/win", Json::object({{"won_at", "2026-05-04"}}), auth), 200,
        dealPath);
    for (const char* field : {"id", "title", "value", "currency", "pipeline_id", "stage_id",
                              "contact_id", "company_id", "won_at"}) {
      CPPUNIT_ASSERT_MESSAGE(std::string(field) + " in " + won.dump(), won.contains(field));
    }
    const Json lost =
        create(client, account.token, "/v1/crm/deals",
               Json::object(
                   {{"title", "Small one"}, {"pipeline_id", pipeline["id"]}, {"stage_id", lead}}));
    const std::string lostPath = "/v1/crm/deals/" + lost["id"].asString();
    script.add("crm.deal.created", script.get(lostPath));
    script.expect("crm.deal.lost",
                  client.post(lostPath + "/lose", Json::object({{"reason", "Budget"}}), auth), 200,
                  lostPath);
    script.expect("crm.deal.updated", client.post(lostPath + "/reopen", Json::object(), auth), 200,
                  lostPath);

    // Activities: create, update, complete, reopen (an update), delete.
    const Json activity = create(
        client, account.token, "/v1/crm/activities",
        Json::object({{"type", "meeting"},
                      {"title", "Kick-off"},
                      {"scheduled_at", "2026-06-01T10:00:00Z"},
                      {"duration_minutes", 30},
                      {"related_to", Json::object({{"type", "deal"}, {"id", deal["id"]}})}}));
    const std::string activityPath = "/v1/crm/activities/" + activity["id"].asString();
    script.add("crm.activity.created", script.get(activityPath));
    script.expect(
        "crm.activity.updated",
        client.patch(activityPath, Json::object({{"description", "Agenda attached."}}), auth), 200,
        activityPath);
    script.expect("crm.activity.completed",
                  client.post(activityPath + "/complete", Json::object(), auth), 200, activityPath);
    script.expect("crm.activity.updated",
                  client.post(activityPath + "/reopen", Json::object(), auth), 200, activityPath);
    script.expectDeleted("crm.activity.deleted", activityPath, activity["id"].asString());

    // Deletions, links first (no unlinking left to announce).
    script.expectDeleted("crm.deal.deleted", dealPath, deal["id"].asString());
    script.expectDeleted("crm.deal.deleted", lostPath, lost["id"].asString());
    script.expectDeleted("crm.contact.deleted", contactPath, contact["id"].asString());
    script.expectDeleted("crm.company.deleted", companyPath, company["id"].asString());

    // Every subscribed type was exercised.
    std::set<std::string> subscribed;
    for (const Json& event : kEveryCrmEvent.asArray()) subscribed.insert(event.asString());
    CPPUNIT_ASSERT(script.types() == subscribed);

    const std::size_t total = script.expected().size();
    CPPUNIT_ASSERT_MESSAGE(std::to_string(receiver.count("/all")) + " of " + std::to_string(total),
                           receiver.waitForRequests(total, 30s, "/all"));
    std::multiset<std::string> received;
    for (const auto& request : receiver.requests("/all")) {
      const Json envelope = Json::parse(request.body);
      CPPUNIT_ASSERT_EQUAL(request.header("X-Service-Event"), envelope["event"].asString());
      received.insert(eventKey(envelope["event"].asString(), envelope["data"]));
    }
    std::string report;
    for (const auto& key : script.expected()) {
      if (received.count(key) != script.expected().count(key)) report += "\n  expected " + key;
    }
    for (const auto& key : received) {
      if (received.count(key) != script.expected().count(key)) report += "\n  received " + key;
    }
    CPPUNIT_ASSERT_MESSAGE("envelopes differ from GET:" + report, report.empty());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(WebhooksEventDataTest);
