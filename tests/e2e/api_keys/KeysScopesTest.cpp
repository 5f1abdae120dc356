// Scope boundaries (decisions §15), table-driven over every CRM route on
// records the owner made: <r>:read opens GET, the list's search and the
// fields' GET; <r>:write opens every route of <r> and includes read; every
// other resource answers 403 "This API key lacks the scope <scope>." naming
// the scope that route needs (a sub-list needs the listed resource's read;
// ?include=company, a search's include and a company.<field> filter need
// companies:read; a deal action deals:write; a field change fields:manage;
// every /webhooks route webhooks:manage; GET /events events:read); refused
// calls change nothing; `*` opens every CRM route. A PATCH of scopes holds
// from the key's very next request, a DELETE makes it 401 at once, and a key
// past its expires_at answers 401.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/api_keys/ApiKeysSuite.h"
#include "e2e/common/Timely.h"

using namespace rapport::e2e;
using namespace rapport::e2e::apikeys;

namespace {

std::vector<Call> joined(std::initializer_list<std::vector<Call>> parts) {
  std::vector<Call> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

Json batchCreate(const Json& data) {
  return Json::object(
      {{"items", Json::Array{Json::object({{"action", "create"}, {"data", data}})}}});
}

Json fieldBody(const std::string& key) {
  return Json::object({{"key", key}, {"label", "Label " + key}, {"type", "text"}});
}

// ------------------------------------------------------------ contacts

// What a contacts:read key may do.
std::vector<Call> contactReads(const World& w) {
  const std::string one = "/v1/crm/contacts/" + w.contact;
  return {
      allowed("GET", "/v1/crm/contacts"),
      allowed("GET", one),
      allowed("POST", "/v1/crm/contacts/search", 200, Json::object()),
      allowed("GET", "/v1/crm/contacts/fields"),
      // A sub-list needs the read scope of what it lists.
      allowed("GET", "/v1/crm/companies/" + w.company + "/contacts"),
  };
}

// The writes of contacts, as a key that may make them.
std::vector<Call> contactWrites(const World& w) {
  const std::string one = "/v1/crm/contacts/" + w.contact;
  return {
      allowed("POST", "/v1/crm/contacts", 201, Json::object({{"name", "By the key"}})),
      allowed("PATCH", one, 200, Json::object({{"job_title", "Analyst"}})),
      allowed("POST", "/v1/crm/contacts/batch", 200,
              batchCreate(Json::object({{"name", "Batched"}}))),
      allowed("DELETE", "/v1/crm/contacts/" + w.contactGone),
  };
}

// The same writes, refused for lack of contacts:write.
std::vector<Call> contactWritesRefused(const World& w) {
  std::vector<Call> out;
  for (Call call : contactWrites(w))
    out.push_back(lacking("contacts:write", call.method, call.path, call.body));
  return out;
}

// ------------------------------------------------------------ companies

std::vector<Call> companyReads(const World& w) {
  return {
      allowed("GET", "/v1/crm/companies"),
      allowed("GET", "/v1/crm/companies/" + w.company),
      allowed("POST", "/v1/crm/companies/search", 200, Json::object()),
      allowed("GET", "/v1/crm/companies/fields"),
  };
}

std::vector<Call> companyWrites(const World& w) {
  return {
      allowed("POST", "/v1/crm/companies", 201, Json::object({{"name", "Key Ltd"}})),
      allowed("PATCH", "/v1/crm/companies/" + w.company, 200,
              Json::object({{"industry", "Software"}})),
      allowed("POST", "/v1/crm/companies/batch", 200,
              batchCreate(Json::object({{"name", "Batch Ltd"}}))),
      allowed("DELETE", "/v1/crm/companies/" + w.companyGone),
  };
}

// ------------------------------------------------------------ deals

std::vector<Call> dealReads(const World& w) {
  return {
      allowed("GET", "/v1/crm/deals"),
      allowed("GET", "/v1/crm/deals/" + w.deal),
      allowed("POST", "/v1/crm/deals/search", 200, Json::object()),
      allowed("GET", "/v1/crm/deals/fields"),
      allowed("GET", "/v1/crm/contacts/" + w.contact + "/deals"),
      allowed("GET", "/v1/crm/companies/" + w.company + "/deals"),
  };
}

// Every write of deals, each action once (stage, win, reopen, lose, reopen).
std::vector<Call> dealWrites(const World& w) {
  const std::string one = "/v1/crm/deals/" + w.deal;
  return {
      allowed(
          "POST", "/v1/crm/deals", 201,
          Json::object(
              {{"title", "Key's deal"}, {"pipeline_id", w.pipeline}, {"stage_id", w.stages[0]}})),
      allowed("PATCH", one, 200, Json::object({{"title", "Bigger deal"}})),
      allowed("PATCH", one + "/stage", 200, Json::object({{"stage_id", w.stages[1]}})),
      allowed("POST", one + "/win", 200, Json::object()),
      allowed("POST", one + "/reopen", 200, Json::object()),
      allowed("POST", one + "/lose", 200, Json::object({{"reason", "Budget"}})),
      allowed("POST", one + "/reopen", 200, Json::object()),
      allowed("POST", "/v1/crm/deals/batch", 200,
              batchCreate(Json::object({{"title", "Batched deal"},
                                        {"pipeline_id", w.pipeline},
                                        {"stage_id", w.stages[0]}}))),
      allowed("DELETE", "/v1/crm/deals/" + w.dealGone),
  };
}

// ------------------------------------------------------------ activities

std::vector<Call> activityReads(const World& w) {
  return {
      allowed("GET", "/v1/crm/activities"),
      allowed("GET", "/v1/crm/activities/" + w.activity),
      allowed("POST", "/v1/crm/activities/search", 200, Json::object()),
      allowed("GET", "/v1/crm/activities/fields"),
      allowed("GET", "/v1/crm/contacts/" + w.contact + "/activities"),
      allowed("GET", "/v1/crm/deals/" + w.deal + "/activities"),
  };
}

std::vector<Call> activityWrites(const World& w) {
  const std::string one = "/v1/crm/activities/" + w.activity;
  return {
      allowed("POST", "/v1/crm/activities", 201,
              Json::object({{"type", "task"},
                            {"title", "Send the offer"},
                            {"related_to", Json::object({{"type", "deal"}, {"id", w.deal}})}})),
      allowed("PATCH", one, 200, Json::object({{"title", "Call Ada back"}})),
      allowed("POST", one + "/complete", 200, Json::object()),
      allowed("POST", one + "/reopen", 200, Json::object()),
      allowed("POST", "/v1/crm/activities/batch", 200,
              batchCreate(Json::object(
                  {{"type", "call"},
                   {"title", "Batched call"},
                   {"related_to", Json::object({{"type", "deal"}, {"id", w.deal}})}}))),
      allowed("DELETE", "/v1/crm/activities/" + w.activityGone),
  };
}

// ------------------------------------------------------------ pipelines

std::vector<Call> pipelineReads(const World& w) {
  const std::string one = "/v1/crm/pipelines/" + w.pipeline;
  return {
      allowed("GET", "/v1/crm/pipelines"),
      allowed("GET", one),
      allowed("GET", one + "/stages"),
      allowed("GET", one + "/stages/" + w.stages[0]),
  };
}

// The writes of pipelines and stages on the world's pipeline (the last stage
// has no deal) and on one the table makes.
std::vector<Call> pipelineWrites(const World& w) {
  const std::string one = "/v1/crm/pipelines/" + w.pipeline;
  Json::Array reversed;
  for (std::size_t i = 0; i < w.stages.size(); ++i) {
    reversed.push_back(Json::object(
        {{"id", w.stages[w.stages.size() - 1 - i]}, {"order", static_cast<int>(i + 1)}}));
  }
  return {
      allowed("POST", "/v1/crm/pipelines", 201,
              Json::object({{"name", "Renewals"},
                            {"stages", Json::Array{Json::object({{"name", "Due"}})}}})),
      allowed("PATCH", one, 200, Json::object({{"name", "Renamed"}})),
      allowed("PATCH", one + "/stages/reorder", 200, Json::object({{"stages", reversed}})),
      allowed("POST", one + "/stages", 201, Json::object({{"name", "Extra"}})),
      allowed("PATCH", one + "/stages/" + w.stages.front(), 200,
              Json::object({{"name", "Renamed stage"}})),
      allowed("DELETE", one + "/stages/" + w.stages.back()),
  };
}

// ------------------------------------------------------------ the rest

std::vector<Call> eventReads() {
  return {allowed("GET", "/v1/events")};
}

std::vector<Call> webhookCalls(const std::string& url) {
  return {
      allowed("GET", "/v1/webhooks/events"),
      allowed("GET", "/v1/webhooks"),
      allowed("POST", "/v1/webhooks", 201,
              Json::object({{"url", url}, {"events", eventsList({"crm.contact.created"})}})),
  };
}

// `table` with every call refused for lack of `scope`.
std::vector<Call> allLacking(const std::string& scope, const std::vector<Call>& table) {
  std::vector<Call> out;
  for (const Call& call : table) out.push_back(lacking(scope, call.method, call.path, call.body));
  return out;
}

// A key of `owner` with `scopes`: its secret.
std::string keyWith(HttpClient& client, const Account& owner,
                    const std::vector<std::string>& scopes) {
  return secretOf(createKey(client, owner.token, scopes, "Scoped"));
}

}  // namespace

class KeysScopesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(KeysScopesTest);
  CPPUNIT_TEST(testContactsReadKey);
  CPPUNIT_TEST(testContactsWriteKeyReadsAndWrites);
  CPPUNIT_TEST(testIncludeNeedsTheIncludedReadScope);
  CPPUNIT_TEST(testCompaniesScopes);
  CPPUNIT_TEST(testDealsScopes);
  CPPUNIT_TEST(testActivitiesScopes);
  CPPUNIT_TEST(testPipelinesScopes);
  CPPUNIT_TEST(testFieldsScopes);
  CPPUNIT_TEST(testWebhooksAndEventsScopes);
  CPPUNIT_TEST(testStarOpensEveryCrmRoute);
  CPPUNIT_TEST(testScopeChangeHoldsFromTheNextRequest);
  CPPUNIT_TEST(testDeletedKeyIs401AtOnce);
  CPPUNIT_TEST(testExpiredKeyIs401);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testContactsReadKey() {
    HttpClient client(keysServer().port());
    const World w = buildWorld(client, "scopes-contacts-read");
    const std::string key = keyWith(client, w.owner, {"contacts:read"});
    const std::string before = recordCounts(keysServer(), w.owner.companyId);
    const Json contact = getBody(client, w.owner.token, "/v1/crm/contacts/" + w.contact)["data"];
    const std::string one = "/v1/crm/contacts/" + w.contact;
    KEYS_RUN_TABLE(
        client, key,
        joined(
            {contactReads(w),
             contactWritesRefused(w),
             {
                 lacking("fields:manage", "POST", "/v1/crm/contacts/fields", fieldBody("region")),
                 lacking("companies:read", "GET", "/v1/crm/companies"),
                 lacking("companies:read", "GET", "/v1/crm/companies/" + w.company),
                 lacking("companies:read", "POST", "/v1/crm/companies/search", Json::object()),
                 lacking("companies:write", "POST", "/v1/crm/companies",
                         Json::object({{"name", "Not allowed"}})),
                 lacking("deals:read", "GET", "/v1/crm/deals"),
                 lacking("deals:read", "GET", one + "/deals"),
                 lacking("deals:read", "GET", "/v1/crm/deals/fields"),
                 lacking("activities:read", "GET", "/v1/crm/activities"),
                 lacking("activities:read", "GET", one + "/activities"),
                 lacking("pipelines:read", "GET", "/v1/crm/pipelines"),
                 lacking("webhooks:manage", "GET", "/v1/webhooks"),
                 lacking("webhooks:manage", "GET", "/v1/webhooks/events"),
                 lacking("events:read", "GET", "/v1/events"),
             }}));
    // The refused writes changed nothing.
    CPPUNIT_ASSERT_EQUAL(before, recordCounts(keysServer(), w.owner.companyId));
    CPPUNIT_ASSERT_EQUAL(contact.dump(), getBody(client, w.owner.token, one)["data"].dump());
    CPPUNIT_ASSERT_EQUAL(std::size_t{0},
                         getBody(client, w.owner.token, "/v1/crm/contacts/fields")["data"].size());
  }

  void testContactsWriteKeyReadsAndWrites() {
    HttpClient client(keysServer().port());
    const World w = buildWorld(client, "scopes-contacts-write");
    const std::string key = keyWith(client, w.owner, {"contacts:write"});
    KEYS_RUN_TABLE(client, key,
                   joined({contactReads(w),
                           contactWrites(w),
                           {
                               lacking("companies:read", "GET", "/v1/crm/companies"),
                               lacking("deals:read", "GET", "/v1/crm/deals"),
                               lacking("activities:write", "POST", "/v1/crm/activities",
                                       Json::object({{"type", "task"}, {"title", "No"}})),
                               lacking("fields:manage", "POST", "/v1/crm/contacts/fields",
                                       fieldBody("region")),
                           }}));
    // The writes were the company's.
    CPPUNIT_ASSERT_EQUAL(
        std::string("Analyst"),
        getBody(client, w.owner.token, "/v1/crm/contacts/" + w.contact)["data"]["job_title"]
            .asString());
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/contacts/" + w.contactGone, bearer(w.owner.token)));
  }

  void testIncludeNeedsTheIncludedReadScope() {
    HttpClient client(keysServer().port());
    const World w = buildWorld(client, "scopes-include");
    const std::vector<Call> includes = {
        allowed("GET", "/v1/crm/contacts?include=company"),
        // The search's include, and a filter through the reference (a hop:
        // it would tell a key about companies it may not read).
        allowed("POST", "/v1/crm/contacts/search", 200,
                Json::object({{"include", Json::Array{Json("company")}}})),
        allowed("POST", "/v1/crm/contacts/search", 200,
                Json::object({{"filter", Json::object({{"company.name", "Acme"}})}})),
    };
    KEYS_RUN_TABLE(client, keyWith(client, w.owner, {"contacts:read"}),
                   allLacking("companies:read", includes));
    KEYS_RUN_TABLE(client, keyWith(client, w.owner, {"contacts:read", "companies:read"}), includes);
    // With both, the list embeds the company.
    const Json listed =
        getBody(client, keyWith(client, w.owner, {"contacts:write", "companies:read"}),
                "/v1/crm/contacts?include=company")["data"];
    bool embedded = false;
    for (const Json& contact : listed.asArray()) {
      if (contact["id"].asString() == w.contact) {
        embedded = contact["company"].isObject() && contact["company"]["id"] == Json(w.company);
      }
    }
    CPPUNIT_ASSERT_MESSAGE(listed.dump(), embedded);
  }

  void testCompaniesScopes() {
    HttpClient client(keysServer().port());
    const World w = buildWorld(client, "scopes-companies");
    const std::string before = recordCounts(keysServer(), w.owner.companyId);
    KEYS_RUN_TABLE(
        client, keyWith(client, w.owner, {"companies:read"}),
        joined({companyReads(w),
                allLacking("companies:write", companyWrites(w)),
                {
                    lacking("contacts:read", "GET", "/v1/crm/companies/" + w.company + "/contacts"),
                    lacking("deals:read", "GET", "/v1/crm/companies/" + w.company + "/deals"),
                    lacking("contacts:read", "GET", "/v1/crm/contacts"),
                }}));
    CPPUNIT_ASSERT_EQUAL(before, recordCounts(keysServer(), w.owner.companyId));
    KEYS_RUN_TABLE(client, keyWith(client, w.owner, {"companies:write"}),
                   joined({companyReads(w),
                           companyWrites(w),
                           {lacking("contacts:write", "POST", "/v1/crm/contacts",
                                    Json::object({{"name", "No"}}))}}));
  }

  void testDealsScopes() {
    HttpClient client(keysServer().port());
    const World w = buildWorld(client, "scopes-deals");
    const Json deal = getBody(client, w.owner.token, "/v1/crm/deals/" + w.deal)["data"];
    // deals:read alone: the deal sub-lists of a contact and a company too.
    KEYS_RUN_TABLE(
        client, keyWith(client, w.owner, {"deals:read"}),
        joined({dealReads(w),
                allLacking("deals:write", dealWrites(w)),
                {lacking("activities:read", "GET", "/v1/crm/deals/" + w.deal + "/activities")}}));
    // Not one action happened: the deal is as it was.
    CPPUNIT_ASSERT_EQUAL(deal.dump(),
                         getBody(client, w.owner.token, "/v1/crm/deals/" + w.deal)["data"].dump());
    KEYS_RUN_TABLE(
        client, keyWith(client, w.owner, {"deals:write"}),
        joined({{allowed("GET", "/v1/crm/deals"), allowed("GET", "/v1/crm/deals/" + w.deal)},
                dealWrites(w),
                {lacking("pipelines:write", "POST", "/v1/crm/pipelines/" + w.pipeline + "/stages",
                         Json::object({{"name", "No"}}))}}));
    CPPUNIT_ASSERT_EQUAL(
        std::string("open"),
        getBody(client, w.owner.token, "/v1/crm/deals/" + w.deal)["data"]["status"].asString());
  }

  void testActivitiesScopes() {
    HttpClient client(keysServer().port());
    const World w = buildWorld(client, "scopes-activities");
    const Json activity =
        getBody(client, w.owner.token, "/v1/crm/activities/" + w.activity)["data"];
    KEYS_RUN_TABLE(client, keyWith(client, w.owner, {"activities:read"}),
                   joined({activityReads(w), allLacking("activities:write", activityWrites(w))}));
    CPPUNIT_ASSERT_EQUAL(
        activity.dump(),
        getBody(client, w.owner.token, "/v1/crm/activities/" + w.activity)["data"].dump());
    KEYS_RUN_TABLE(client, keyWith(client, w.owner, {"activities:write"}),
                   joined({{allowed("GET", "/v1/crm/activities"),
                            allowed("GET", "/v1/crm/activities/" + w.activity)},
                           activityWrites(w),
                           {lacking("deals:write", "POST", "/v1/crm/deals/" + w.deal + "/win",
                                    Json::object())}}));
  }

  void testPipelinesScopes() {
    HttpClient client(keysServer().port());
    const World w = buildWorld(client, "scopes-pipelines");
    const Json before = getBody(client, w.owner.token, "/v1/crm/pipelines/" + w.pipeline)["data"];
    KEYS_RUN_TABLE(
        client, keyWith(client, w.owner, {"pipelines:read"}),
        joined({pipelineReads(w),
                allLacking("pipelines:write", pipelineWrites(w)),
                {lacking("pipelines:write", "DELETE", "/v1/crm/pipelines/" + w.pipeline)}}));
    CPPUNIT_ASSERT_EQUAL(
        before.dump(),
        getBody(client, w.owner.token, "/v1/crm/pipelines/" + w.pipeline)["data"].dump());
    KEYS_RUN_TABLE(client, keyWith(client, w.owner, {"pipelines:write"}),
                   joined({pipelineReads(w),
                           pipelineWrites(w),
                           {lacking("deals:read", "GET", "/v1/crm/deals")}}));
    CPPUNIT_ASSERT_EQUAL(
        std::string("Renamed"),
        getBody(client, w.owner.token, "/v1/crm/pipelines/" + w.pipeline)["data"]["name"]
            .asString());
  }

  // Definitions: read with the record's read scope, changed with
  // fields:manage only.
  void testFieldsScopes() {
    HttpClient client(keysServer().port());
    const World w = buildWorld(client, "scopes-fields");
    const std::string manager = keyWith(client, w.owner, {"fields:manage"});
    KEYS_RUN_TABLE(client, manager,
                   (std::vector<Call>{
                       allowed("POST", "/v1/crm/contacts/fields", 201, fieldBody("region")),
                       allowed("POST", "/v1/crm/deals/fields", 201, fieldBody("source")),
                       allowed("PATCH", "/v1/crm/contacts/fields/region", 200,
                               Json::object({{"label", "Sales region"}})),
                       allowed("POST", "/v1/crm/contacts/fields", 201, fieldBody("gone")),
                       allowed("DELETE", "/v1/crm/contacts/fields/gone"),
                       lacking("contacts:read", "GET", "/v1/crm/contacts/fields"),
                       lacking("contacts:read", "GET", "/v1/crm/contacts/fields/region"),
                       lacking("contacts:read", "GET", "/v1/crm/contacts"),
                   }));
    const std::string reader = keyWith(client, w.owner, {"contacts:write"});
    KEYS_RUN_TABLE(
        client, reader,
        (std::vector<Call>{
            allowed("GET", "/v1/crm/contacts/fields"),
            allowed("GET", "/v1/crm/contacts/fields/region"),
            lacking("deals:read", "GET", "/v1/crm/deals/fields"),
            lacking("deals:read", "GET", "/v1/crm/deals/fields/source"),
            lacking("fields:manage", "POST", "/v1/crm/contacts/fields", fieldBody("other")),
            lacking("fields:manage", "PATCH", "/v1/crm/contacts/fields/region",
                    Json::object({{"label", "Taken"}})),
            lacking("fields:manage", "DELETE", "/v1/crm/contacts/fields/region"),
        }));
    const Json region = getBody(client, w.owner.token, "/v1/crm/contacts/fields/region")["data"];
    CPPUNIT_ASSERT_EQUAL(std::string("Sales region"), region["label"].asString());
  }

  void testWebhooksAndEventsScopes() {
    Receiver receiver;
    HttpClient client(keysServer().port());
    const World w = buildWorld(client, "scopes-webhooks");
    const Json hook =
        createWebhook(client, w.owner.token, receiver.url("/owner"), eventsList({"crm.deal.won"}));
    const std::string path = webhookPath(hook);
    const std::vector<Call> others = {
        allowed("GET", path),
        allowed("PATCH", path, 200, Json::object({{"is_active", false}})),
        allowed("GET", path + "/deliveries"),
        allowed("PATCH", path, 200, Json::object({{"is_active", true}})),
    };
    // Without webhooks:manage (even with every other scope but `*`), every
    // /webhooks route is 403 naming it; GET /events needs events:read.
    const std::string without =
        keyWith(client, w.owner,
                {"contacts:write", "companies:write", "deals:write", "activities:write",
                 "pipelines:write", "fields:manage", "imports:write", "exports:read"});
    KEYS_RUN_TABLE(
        client, without,
        joined({allLacking("webhooks:manage", webhookCalls(receiver.url("/key"))),
                allLacking("webhooks:manage", others), allLacking("events:read", eventReads())}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1),
                         getBody(client, w.owner.token, "/v1/webhooks")["meta"]["total"].asInt());

    KEYS_RUN_TABLE(client, keyWith(client, w.owner, {"webhooks:manage"}),
                   joined({webhookCalls(receiver.url("/key")), others,
                           allLacking("events:read", eventReads())}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2),
                         getBody(client, w.owner.token, "/v1/webhooks")["meta"]["total"].asInt());
    KEYS_RUN_TABLE(client, keyWith(client, w.owner, {"events:read"}),
                   joined({eventReads(), {lacking("webhooks:manage", "GET", "/v1/webhooks")}}));
  }

  void testStarOpensEveryCrmRoute() {
    Receiver receiver;
    HttpClient client(keysServer().port());
    const World w = buildWorld(client, "scopes-star");
    const std::string star = keyWith(client, w.owner, {"*"});
    KEYS_RUN_TABLE(client, star,
                   joined({contactReads(w),
                           contactWrites(w),
                           companyReads(w),
                           companyWrites(w),
                           dealReads(w),
                           dealWrites(w),
                           activityReads(w),
                           activityWrites(w),
                           pipelineReads(w),
                           pipelineWrites(w),
                           {allowed("GET", "/v1/crm/contacts?include=company"),
                            allowed("POST", "/v1/crm/contacts/fields", 201, fieldBody("region")),
                            allowed("DELETE", "/v1/crm/contacts/fields/region")},
                           webhookCalls(receiver.url("/star")),
                           eventReads(),
                           // ... but never the account routes.
                           {refused("GET", kKeys), refused("GET", "/v1/company/members"),
                            refused("GET", "/v1/user/profile")}}));
  }

  void testScopeChangeHoldsFromTheNextRequest() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "scopes-change");
    const Json key = createKey(client, owner.token, {"contacts:read"});
    const std::string secret = secretOf(key);
    const Json contact = Json::object({{"name", "Later"}});
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secret)));
    KEYS_ASSERT_LACKS("contacts:write", client.post("/v1/crm/contacts", contact, bearer(secret)));

    E2E_ASSERT_DATA(
        200, client.patch(keyPath(key), Json::object({{"scopes", scopeList({"contacts:write"})}}),
                          bearer(owner.token)));
    E2E_ASSERT_DATA(201, client.post("/v1/crm/contacts", contact, bearer(secret)));

    E2E_ASSERT_DATA(
        200, client.patch(keyPath(key), Json::object({{"scopes", scopeList({"deals:read"})}}),
                          bearer(owner.token)));
    KEYS_ASSERT_LACKS("contacts:read", client.get("/v1/crm/contacts", bearer(secret)));
    E2E_ASSERT_DATA(200, client.get("/v1/crm/deals", bearer(secret)));
    // /auth/me shows the scopes as they are now.
    CPPUNIT_ASSERT_EQUAL(scopeList({"deals:read"}).dump(),
                         getBody(client, secret, "/v1/auth/me")["data"]["scopes"].dump());

    // On another connection too (another server thread, the same cache).
    HttpClient other(keysServer().port());
    E2E_ASSERT_DATA(200, client.patch(keyPath(key), Json::object({{"scopes", scopeList({"*"})}}),
                                      bearer(owner.token)));
    E2E_ASSERT_DATA(201, other.post("/v1/crm/contacts", contact, bearer(secret)));
  }

  void testDeletedKeyIs401AtOnce() {
    HttpClient client(keysServer().port());
    HttpClient other(keysServer().port());
    const Account owner = registerUser(client, "scopes-revoked");
    const Json key = createKey(client, owner.token, {"*"});
    const std::string secret = secretOf(key);
    // Used (and possibly cached) on both connections first.
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secret)));
    E2E_ASSERT_DATA(200, other.get("/v1/crm/contacts", bearer(secret)));
    E2E_ASSERT_DATA(200, client.del(keyPath(key), bearer(owner.token)));
    KEYS_ASSERT_401(client.get("/v1/crm/contacts", bearer(secret)));
    KEYS_ASSERT_401(other.post("/v1/crm/contacts", Json::object({{"name", "No"}}), bearer(secret)));
    KEYS_ASSERT_401(other.get("/v1/auth/me", bearer(secret)));
    CPPUNIT_ASSERT_EQUAL(std::size_t{0},
                         getBody(client, owner.token, "/v1/crm/contacts")["data"].size());
  }

  // expires_at 2 s ahead: the key works at first (when the machine was quick
  // enough to ask before then), then answers 401, never before its time.
  void testExpiredKeyIs401() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "scopes-expiry");
    retryUntilTimely("a request before the key's expiry", 5, [&](int) {
      const auto started = std::chrono::steady_clock::now();
      const Json key = createKey(client, owner.token, {"contacts:read"}, "Short-lived",
                                 Json::object({{"expires_at", isoFromNow(2)}}));
      const std::int64_t expiresMicros = *rapport::parseIsoTimestamp(key["expires_at"].asString());
      const HttpResult early = client.get("/v1/crm/contacts", bearer(secretOf(key)));
      if (std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(1500)) {
        return false;
      }
      E2E_ASSERT_DATA(200, early);
      HttpResult last;
      const bool expired = waitUntil(
          [&] {
            last = client.get("/v1/crm/contacts", bearer(secretOf(key)));
            return last.status != 200;
          },
          std::chrono::seconds(10));
      CPPUNIT_ASSERT_MESSAGE(describe(last), expired);
      KEYS_ASSERT_401(last);
      // Not before its time (the clocks are this machine's: 100 ms of slack).
      CPPUNIT_ASSERT_MESSAGE(key.dump(), rapport::nowMicros() >= expiresMicros - 100'000);
      KEYS_ASSERT_401(client.get("/v1/auth/me", bearer(secretOf(key))));
      return true;
    });
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(KeysScopesTest);
