// Webhook registrations (API Webhook, Webhooks endpoints; decisions §1, §2,
// §8, §11): every endpoint's answers and errors, roles, validation, the
// secret (returned on create and rotate only), partial updates, lists, and
// the event catalogue of the enabled modules.
#include <cppunit/extensions/HelperMacros.h>

#include <map>
#include <set>

#include "e2e/webhooks/WebhooksSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::webhooks;

namespace {

// A URL the delivery server accepts at registration (private targets are
// allowed there); nothing is delivered to it in these tests.
std::string hookUrl(const std::string& path = "/hooks") {
  return "https://localhost:9" + path;
}

const Json kContactCreated = eventsList({"crm.contact.created"});

// Every event type the CRM modules declare, webhook.ping and
// webhook.disabled, and the host's custom field events, with the module that
// declares it.
const std::map<std::string, std::string> kCatalogue = {
    {"crm.activity.completed", "activities"},
    {"crm.activity.created", "activities"},
    {"crm.activity.deleted", "activities"},
    {"crm.activity.updated", "activities"},
    {"crm.company.created", "companies"},
    {"crm.company.deleted", "companies"},
    {"crm.company.updated", "companies"},
    {"crm.contact.created", "contacts"},
    {"crm.contact.deleted", "contacts"},
    {"crm.contact.updated", "contacts"},
    {"crm.deal.created", "deals"},
    {"crm.deal.deleted", "deals"},
    {"crm.deal.lost", "deals"},
    {"crm.deal.stage_changed", "deals"},
    {"crm.deal.updated", "deals"},
    {"crm.deal.won", "deals"},
    {"crm.field.created", "host"},
    {"crm.field.deleted", "host"},
    {"crm.field.updated", "host"},
    {"webhook.disabled", "webhooks"},
    {"webhook.ping", "webhooks"},
};

// The webhook read shape: exactly these members, never the secret.
void assertReadShape(const Json& webhook) {
  const std::set<std::string> expected = {
      "id",          "url",        "events",    "is_active", "disabled_reason",
      "disabled_at", "created_at", "updated_at"};
  std::set<std::string> members;
  for (const auto& member : webhook.asObject()) members.insert(member.first);
  CPPUNIT_ASSERT_MESSAGE(webhook.dump(), members == expected);
}

bool isGeneratedSecret(const Json& secret) {
  if (!secret.isString()) return false;
  const std::string& text = secret.asString();
  if (text.rfind("whsec_", 0) != 0) return false;
  const std::string rest = text.substr(6);
  // 32 random bytes, encoded: at least 43 characters of base64url (or more of hex).
  return rest.size() >= 43 &&
         rest.find_first_not_of(
             "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
             std::string::npos;
}

}  // namespace

class WebhooksCrudTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(WebhooksCrudTest);
  CPPUNIT_TEST(testEveryRouteNeedsAToken);
  CPPUNIT_TEST(testMembersAreForbiddenButMayReadTheCatalogue);
  CPPUNIT_TEST(testAdminsMayManageWebhooks);
  CPPUNIT_TEST(testCreateAnswersTheSecretOnce);
  CPPUNIT_TEST(testCreateWithOwnSecretAndInactive);
  CPPUNIT_TEST(testUrlRules);
  CPPUNIT_TEST(testEventsRules);
  CPPUNIT_TEST(testSecretRules);
  CPPUNIT_TEST(testIsActiveRules);
  CPPUNIT_TEST(testMalformedBodyIs400);
  CPPUNIT_TEST(testPatchChangesOnlyWhatIsSent);
  CPPUNIT_TEST(testPatchRules);
  CPPUNIT_TEST(testRotateSecret);
  CPPUNIT_TEST(testDelete);
  CPPUNIT_TEST(testAWebhookIsConditional);
  CPPUNIT_TEST(testUnknownOrOtherCompanysWebhookIs404);
  CPPUNIT_TEST(testListPagination);
  CPPUNIT_TEST(testEventCatalogue);
  CPPUNIT_TEST(testCatalogueFollowsTheEnabledModules);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEveryRouteNeedsAToken() {
    HttpClient client(deliveryServer().port());
    const Json body = Json::object({{"url", hookUrl()}, {"events", kContactCreated}});
    E2E_ASSERT_ERROR(401, client.get("/v1/webhooks/events"));
    E2E_ASSERT_ERROR(401, client.get("/v1/webhooks"));
    E2E_ASSERT_ERROR(401, client.post("/v1/webhooks", body));
    E2E_ASSERT_ERROR(401, client.get("/v1/webhooks/whk_x"));
    E2E_ASSERT_ERROR(401, client.patch("/v1/webhooks/whk_x", Json::object()));
    E2E_ASSERT_ERROR(401, client.del("/v1/webhooks/whk_x"));
    E2E_ASSERT_ERROR(401, client.post("/v1/webhooks/whk_x/rotate-secret"));
    E2E_ASSERT_ERROR(401, client.post("/v1/webhooks/whk_x/ping"));
    E2E_ASSERT_ERROR(401, client.get("/v1/webhooks/whk_x/deliveries"));
    E2E_ASSERT_ERROR(401, client.get("/v1/webhooks/whk_x/deliveries/whd_x"));
    E2E_ASSERT_ERROR(401, client.post("/v1/webhooks/whk_x/deliveries/whd_x/retry"));
    E2E_ASSERT_ERROR(401, client.get("/v1/webhooks", bearer("not-a-token")));
  }

  // Decisions §2: GET /webhooks/events is for any member; every other
  // /webhooks endpoint needs owner or admin (403 for a member, even on a
  // webhook that exists).
  void testMembersAreForbiddenButMayReadTheCatalogue() {
    HttpClient client(deliveryServer().port());
    const Account owner = registerUser(client, "whk-owner");
    const Account member = joinAs(client, owner, "member", "whk-member");
    const Json webhook = createWebhook(client, owner.token, hookUrl(), kContactCreated);
    const std::string path = webhookPath(webhook);
    const Headers auth = bearer(member.token);

    const Json catalogue = E2E_ASSERT_DATA(200, client.get("/v1/webhooks/events", auth));
    CPPUNIT_ASSERT_EQUAL(kCatalogue.size(), catalogue.size());

    const Json body = Json::object({{"url", hookUrl()}, {"events", kContactCreated}});
    E2E_ASSERT_ERROR(403, client.get("/v1/webhooks", auth));
    E2E_ASSERT_ERROR(403, client.post("/v1/webhooks", body, auth));
    E2E_ASSERT_ERROR(403, client.get(path, auth));
    E2E_ASSERT_ERROR(403, client.patch(path, Json::object({{"is_active", false}}), auth));
    E2E_ASSERT_ERROR(403, client.del(path, auth));
    E2E_ASSERT_ERROR(403, client.post(path + "/rotate-secret", Json::object(), auth));
    E2E_ASSERT_ERROR(403, client.post(path + "/ping", Json::object(), auth));
    E2E_ASSERT_ERROR(403, client.get(path + "/deliveries", auth));
    E2E_ASSERT_ERROR(403, client.get(path + "/deliveries/whd_x", auth));
    E2E_ASSERT_ERROR(403, client.post(path + "/deliveries/whd_x/retry", Json::object(), auth));

    // Nothing changed: the owner reads it as it was.
    const Json read = E2E_ASSERT_DATA(200, client.get(path, bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(true, read["is_active"].asBool());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1),
                         getBody(client, owner.token, "/v1/webhooks")["meta"]["total"].asInt());
  }

  void testAdminsMayManageWebhooks() {
    HttpClient client(deliveryServer().port());
    const Account owner = registerUser(client, "whk-owner2");
    const Account admin = joinAs(client, owner, "admin", "whk-admin");
    const Json webhook = createWebhook(client, admin.token, hookUrl(), kContactCreated);
    E2E_ASSERT_DATA(200, client.get(webhookPath(webhook), bearer(admin.token)));
    E2E_ASSERT_DATA(200, client.patch(webhookPath(webhook), Json::object({{"is_active", false}}),
                                      bearer(admin.token)));
    E2E_ASSERT_DATA(200, client.post(webhookPath(webhook, "/rotate-secret"), Json::object(),
                                     bearer(admin.token)));
    E2E_ASSERT_DATA(200, client.get(webhookPath(webhook, "/deliveries"), bearer(admin.token)));
    // The owner sees the admin's webhook: it belongs to the company.
    E2E_ASSERT_DATA(200, client.get(webhookPath(webhook), bearer(owner.token)));
    E2E_ASSERT_STATUS(200, client.del(webhookPath(webhook), bearer(admin.token)));
  }

  void testCreateAnswersTheSecretOnce() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-create");
    const std::int64_t before = unixNow();
    const HttpResult result =
        client.post("/v1/webhooks",
                    Json::object({{"url", hookUrl("/in?source=rapport")},
                                  {"events", eventsList({"crm.deal.won", "crm.contact.created"})}}),
                    bearer(account.token));
    E2E_ASSERT_COMMON_HEADERS(result);
    const Json created = E2E_ASSERT_DATA(201, result);
    const std::string id = created["id"].asString();
    CPPUNIT_ASSERT_MESSAGE(id, id.rfind("whk_", 0) == 0 && id.size() > 14);
    CPPUNIT_ASSERT_EQUAL(hookUrl("/in?source=rapport"), created["url"].asString());
    // The client's order.
    CPPUNIT_ASSERT_EQUAL(eventsList({"crm.deal.won", "crm.contact.created"}).dump(),
                         created["events"].dump());
    CPPUNIT_ASSERT_EQUAL(true, created["is_active"].asBool());
    CPPUNIT_ASSERT_MESSAGE(created.dump(), isGeneratedSecret(created["secret"]));
    const std::int64_t createdAt = E2E_ASSERT_ISO_UTC(created["created_at"]);
    CPPUNIT_ASSERT(createdAt >= before - 1 && createdAt <= unixNow() + 1);
    CPPUNIT_ASSERT_EQUAL(created["created_at"].dump(), created["updated_at"].dump());

    // Reads never carry the secret; otherwise they are the create answer.
    Json withoutSecret = created;
    withoutSecret.erase("secret");
    const Json read = E2E_ASSERT_DATA(200, client.get(webhookPath(created), bearer(account.token)));
    assertReadShape(read);
    WEBHOOKS_ASSERT_SAME_JSON(withoutSecret, read);
    const Json list = getBody(client, account.token, "/v1/webhooks")["data"];
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), list.size());
    assertReadShape(list.asArray()[0]);
    WEBHOOKS_ASSERT_SAME_JSON(withoutSecret, list.asArray()[0]);
    const Json patched = E2E_ASSERT_DATA(
        200, client.patch(webhookPath(created), Json::object(), bearer(account.token)));
    assertReadShape(patched);

    // Each webhook gets its own secret.
    const Json other = createWebhook(client, account.token, hookUrl(), kContactCreated);
    CPPUNIT_ASSERT_MESSAGE(other.dump(), isGeneratedSecret(other["secret"]));
    CPPUNIT_ASSERT(other["secret"].asString() != created["secret"].asString());
    CPPUNIT_ASSERT(other["id"].asString() != id);

    // Stored sealed: the database holds neither secret in clear.
    for (const auto& row :
         queryDatabase(deliveryServer().databaseUrl(), "SELECT * FROM webhooks")) {
      for (const auto& value : row) {
        CPPUNIT_ASSERT(value.find(created["secret"].asString()) == std::string::npos);
        CPPUNIT_ASSERT(value.find(other["secret"].asString()) == std::string::npos);
      }
    }
  }

  void testCreateWithOwnSecretAndInactive() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-own");
    const std::string secret = "my own secret of some length";
    const Json created =
        createWebhook(client, account.token, hookUrl(), kContactCreated,
                      Json::object({{"secret", secret}, {"is_active", false}, {"color", "red"}}));
    CPPUNIT_ASSERT_EQUAL(secret, created["secret"].asString());
    CPPUNIT_ASSERT_EQUAL(false, created["is_active"].asBool());
    CPPUNIT_ASSERT(!created.contains("color"));  // unknown fields are ignored
    const Json read = E2E_ASSERT_DATA(200, client.get(webhookPath(created), bearer(account.token)));
    assertReadShape(read);
    CPPUNIT_ASSERT_EQUAL(false, read["is_active"].asBool());
    // Duplicated event types are kept once, in the client's order.
    const Json twice = createWebhook(
        client, account.token, hookUrl(),
        eventsList({"crm.contact.updated", "crm.contact.created", "crm.contact.updated"}));
    CPPUNIT_ASSERT_EQUAL(eventsList({"crm.contact.updated", "crm.contact.created"}).dump(),
                         twice["events"].dump());
  }

  void testUrlRules() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-url");
    const auto create = [&](const Json& url) {
      Json body = Json::object({{"events", kContactCreated}});
      if (!url.isNull()) body.set("url", url);
      return client.post("/v1/webhooks", body, bearer(account.token));
    };
    CRM_ASSERT_FIELD_ERROR(create(Json()), "url", "");
    CRM_ASSERT_FIELD_ERROR(create(Json("")), "url", "");
    CRM_ASSERT_FIELD_ERROR(create(Json(42)), "url", "");
    CRM_ASSERT_FIELD_ERROR(create(Json("http://localhost:9/hooks")), "url",
                           "url must be a valid https URL");
    CRM_ASSERT_FIELD_ERROR(create(Json("ftp://localhost/hooks")), "url",
                           "url must be a valid https URL");
    CRM_ASSERT_FIELD_ERROR(create(Json("localhost/hooks")), "url", "url must be a valid https URL");
    CRM_ASSERT_FIELD_ERROR(create(Json("https:///hooks")), "url", "url must be a valid https URL");
    CRM_ASSERT_FIELD_ERROR(create(Json("https://user:pass@localhost/hooks")), "url",
                           "url must not contain credentials");
    // At most 2048 characters: 2048 is fine, 2049 is not.
    const std::string base = hookUrl("/");
    const std::string longest = base + std::string(2048 - base.size(), 'a');
    CPPUNIT_ASSERT_EQUAL(std::size_t(2048), longest.size());
    createWebhook(client, account.token, longest, kContactCreated);
    CRM_ASSERT_FIELD_ERROR(create(Json(longest + "a")), "url",
                           "The url may not be greater than 2048 characters.");
    // Upper-case scheme is still https.
    createWebhook(client, account.token, "HTTPS://localhost:9/upper", kContactCreated);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2),
                         getBody(client, account.token, "/v1/webhooks")["meta"]["total"].asInt());
  }

  void testEventsRules() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-events");
    const auto create = [&](const Json& events) {
      Json body = Json::object({{"url", hookUrl()}});
      if (!events.isNull()) body.set("events", events);
      return client.post("/v1/webhooks", body, bearer(account.token));
    };
    CRM_ASSERT_FIELD_ERROR(create(Json()), "events", "");
    CRM_ASSERT_FIELD_ERROR(create(Json::array()), "events", "");
    CRM_ASSERT_FIELD_ERROR(create(Json("crm.contact.created")), "events", "");
    CRM_ASSERT_FIELD_ERROR(create(Json::Array{Json(5)}), "events.0", "");
    // An unknown type is named in the message.
    const Json body = CRM_ASSERT_FIELD_ERROR(
        create(eventsList({"crm.contact.created", "crm.contact.exploded"})), "events", "");
    CPPUNIT_ASSERT_MESSAGE(body.dump(), body["errors"]["events"].asArray()[0].asString().find(
                                            "crm.contact.exploded") != std::string::npos);
    CRM_ASSERT_FIELD_ERROR(create(eventsList({"*"})), "events", "");
    // Nothing was created.
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0),
                         getBody(client, account.token, "/v1/webhooks")["meta"]["total"].asInt());
    // webhook.ping is a declared type and may be subscribed.
    createWebhook(client, account.token, hookUrl(), eventsList({"webhook.ping"}));
  }

  void testSecretRules() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-secret");
    const auto create = [&](const Json& secret) {
      return client.post(
          "/v1/webhooks",
          Json::object({{"url", hookUrl()}, {"events", kContactCreated}, {"secret", secret}}),
          bearer(account.token));
    };
    CRM_ASSERT_FIELD_ERROR(create(Json(std::string(15, 's'))), "secret", "");
    CRM_ASSERT_FIELD_ERROR(create(Json(std::string(257, 's'))), "secret", "");
    CRM_ASSERT_FIELD_ERROR(create(Json("")), "secret", "");
    CRM_ASSERT_FIELD_ERROR(create(Json(1234567890123456789LL)), "secret", "");
    CRM_ASSERT_FIELD_ERROR(create(Json("sixteen chars\nwith a newline")), "secret", "");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0),
                         getBody(client, account.token, "/v1/webhooks")["meta"]["total"].asInt());
    const Json shortest = E2E_ASSERT_DATA(201, create(Json(std::string(16, 's'))));
    CPPUNIT_ASSERT_EQUAL(std::string(16, 's'), shortest["secret"].asString());
    const Json longest = E2E_ASSERT_DATA(201, create(Json(std::string(256, 'L'))));
    CPPUNIT_ASSERT_EQUAL(std::string(256, 'L'), longest["secret"].asString());
  }

  void testIsActiveRules() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-active");
    for (const Json& value : {Json("true"), Json(1), Json::array(), Json(nullptr)}) {
      CRM_ASSERT_FIELD_ERROR(
          client.post(
              "/v1/webhooks",
              Json::object({{"url", hookUrl()}, {"events", kContactCreated}, {"is_active", value}}),
              bearer(account.token)),
          "is_active", "");
    }
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0),
                         getBody(client, account.token, "/v1/webhooks")["meta"]["total"].asInt());
  }

  void testMalformedBodyIs400() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-400");
    const Headers headers = bearer(account.token, {{"Content-Type", "application/json"}});
    E2E_ASSERT_ERROR(400, client.send("POST", "/v1/webhooks", std::string("{\"url\":"), headers));
    E2E_ASSERT_ERROR(400, client.send("POST", "/v1/webhooks", std::string("[]"), headers));
    const Json webhook = createWebhook(client, account.token, hookUrl(), kContactCreated);
    E2E_ASSERT_ERROR(400, client.send("PATCH", webhookPath(webhook), std::string("nope"), headers));
  }

  void testPatchChangesOnlyWhatIsSent() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-patch");
    const Json created = createWebhook(client, account.token, hookUrl("/a"), kContactCreated);
    Json expected = created;
    expected.erase("secret");

    const Json inactive = E2E_ASSERT_DATA(
        200, client.patch(webhookPath(created), Json::object({{"is_active", false}}),
                          bearer(account.token)));
    assertReadShape(inactive);
    expected.set("is_active", false);
    expected.set("updated_at", inactive["updated_at"]);
    WEBHOOKS_ASSERT_SAME_JSON(expected, inactive);
    CPPUNIT_ASSERT(E2E_ASSERT_ISO_UTC(inactive["updated_at"]) >=
                   E2E_ASSERT_ISO_UTC(created["updated_at"]));

    const Json events = eventsList({"crm.company.created", "crm.deal.lost"});
    const Json moved = E2E_ASSERT_DATA(
        200, client.patch(webhookPath(created),
                          Json::object({{"url", hookUrl("/b")}, {"events", events}}),
                          bearer(account.token)));
    expected.set("url", hookUrl("/b"));
    expected.set("events", events);
    expected.set("updated_at", moved["updated_at"]);
    WEBHOOKS_ASSERT_SAME_JSON(expected, moved);

    // A new secret: answered without it.
    const Json resecret = E2E_ASSERT_DATA(
        200,
        client.patch(webhookPath(created),
                     Json::object({{"secret", "a brand new secret value"}, {"is_active", true}}),
                     bearer(account.token)));
    assertReadShape(resecret);
    expected.set("is_active", true);
    expected.set("updated_at", resecret["updated_at"]);
    WEBHOOKS_ASSERT_SAME_JSON(expected, resecret);
    WEBHOOKS_ASSERT_SAME_JSON(
        expected, E2E_ASSERT_DATA(200, client.get(webhookPath(created), bearer(account.token))));
    // The creation time never moves.
    CPPUNIT_ASSERT_EQUAL(created["created_at"].dump(), resecret["created_at"].dump());
  }

  void testPatchRules() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-patch-rules");
    const Json created = createWebhook(client, account.token, hookUrl(), kContactCreated);
    const std::string path = webhookPath(created);
    const auto patch = [&](const Json& body) {
      return client.patch(path, body, bearer(account.token));
    };
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"url", "http://localhost:9/x"}})), "url",
                           "url must be a valid https URL");
    CRM_ASSERT_FIELD_ERROR(
        patch(Json::object({{"url", "https://localhost:9/" + std::string(2030, 'a')}})), "url",
        "The url may not be greater than 2048 characters.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"url", Json()}})), "url", "");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"events", Json::array()}})), "events", "");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"events", Json()}})), "events", "");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"events", eventsList({"crm.nothing"})}})), "events",
                           "");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"secret", std::string(15, 'x')}})), "secret", "");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"secret", std::string(257, 'x')}})), "secret", "");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"is_active", "false"}})), "is_active", "");
    // A 422 changes nothing, not even the valid fields sent with the bad one.
    CRM_ASSERT_FIELD_ERROR(
        patch(Json::object({{"is_active", false}, {"events", eventsList({"crm.nothing"})}})),
        "events", "");
    Json expected = created;
    expected.erase("secret");
    WEBHOOKS_ASSERT_SAME_JSON(expected,
                              E2E_ASSERT_DATA(200, client.get(path, bearer(account.token))));
  }

  void testRotateSecret() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-rotate");
    const Json created = createWebhook(client, account.token, hookUrl(), kContactCreated);
    const HttpResult result =
        client.post(webhookPath(created, "/rotate-secret"), Json::object(), bearer(account.token));
    const Json rotated = E2E_ASSERT_DATA(200, result);
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), rotated.size());
    CPPUNIT_ASSERT_EQUAL(created["id"].asString(), rotated["id"].asString());
    CPPUNIT_ASSERT_MESSAGE(rotated.dump(), isGeneratedSecret(rotated["secret"]));
    CPPUNIT_ASSERT(rotated["secret"].asString() != created["secret"].asString());
    // Each rotation makes a new secret.
    const Json again = E2E_ASSERT_DATA(200, client.post(webhookPath(created, "/rotate-secret"),
                                                        Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT(again["secret"].asString() != rotated["secret"].asString());
    assertReadShape(E2E_ASSERT_DATA(200, client.get(webhookPath(created), bearer(account.token))));
  }

  void testDelete() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-delete");
    const Json kept = createWebhook(client, account.token, hookUrl("/kept"), kContactCreated);
    const Json gone = createWebhook(client, account.token, hookUrl("/gone"), kContactCreated);
    const HttpResult result = client.del(webhookPath(gone), bearer(account.token));
    E2E_ASSERT_STATUS(200, result);
    const Json body = E2E_ASSERT_JSON(result);
    CPPUNIT_ASSERT_MESSAGE(describe(result), body["message"].isString());
    const std::string path = webhookPath(gone);
    E2E_ASSERT_ERROR(404, client.get(path, bearer(account.token)));
    E2E_ASSERT_ERROR(404, client.del(path, bearer(account.token)));
    E2E_ASSERT_ERROR(
        404, client.patch(path, Json::object({{"is_active", false}}), bearer(account.token)));
    E2E_ASSERT_ERROR(404,
                     client.post(path + "/rotate-secret", Json::object(), bearer(account.token)));
    E2E_ASSERT_ERROR(404, client.post(path + "/ping", Json::object(), bearer(account.token)));
    E2E_ASSERT_ERROR(404, client.get(path + "/deliveries", bearer(account.token)));
    CPPUNIT_ASSERT(idsOf(getBody(client, account.token, "/v1/webhooks")) ==
                   std::vector<std::string>{kept["id"].asString()});
  }

  // A webhook is a record (docs/api-choices.md "Conditional requests"): its
  // GET sends an ETag, a write or action with a stale If-Match is a 412 that
  // changes nothing, and one with the current tag goes through.
  void testAWebhookIsConditional() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-etag");
    const Json created = createWebhook(client, account.token, hookUrl(), kContactCreated);
    const std::string path = webhookPath(created);
    auto tagged = [&](const std::string& header, const std::string& tag) {
      return bearer(account.token, {{header, tag}});
    };
    auto currentTag = [&] {
      const HttpResult got = client.get(path, bearer(account.token));
      E2E_ASSERT_DATA(200, got);
      CPPUNIT_ASSERT_MESSAGE(describe(got), got.hasHeader("ETag"));
      return got.header("ETag");
    };
    const std::string first = currentTag();
    CPPUNIT_ASSERT_EQUAL(304, client.get(path, tagged("If-None-Match", first)).status);
    E2E_ASSERT_DATA(
        200, client.patch(path, Json::object({{"is_active", false}}), tagged("If-Match", first)));
    const std::string second = currentTag();
    CPPUNIT_ASSERT(second != first);
    E2E_ASSERT_ERROR(
        412, client.patch(path, Json::object({{"is_active", true}}), tagged("If-Match", first)));
    E2E_ASSERT_ERROR(
        412, client.post(path + "/rotate-secret", Json::object(), tagged("If-Match", first)));
    E2E_ASSERT_ERROR(412, client.del(path, tagged("If-Match", first)));
    CPPUNIT_ASSERT_EQUAL(second, currentTag());  // the 412s changed nothing
    E2E_ASSERT_DATA(
        200, client.post(path + "/rotate-secret", Json::object(), tagged("If-Match", second)));
    E2E_ASSERT_STATUS(200, client.del(path, tagged("If-Match", currentTag())));
    E2E_ASSERT_ERROR(404, client.get(path, bearer(account.token)));
  }

  void testUnknownOrOtherCompanysWebhookIs404() {
    HttpClient client(deliveryServer().port());
    const Account owner = registerUser(client, "whk-iso-a");
    const Account stranger = registerUser(client, "whk-iso-b");
    const Json webhook = createWebhook(client, owner.token, hookUrl(), kContactCreated);
    const Headers auth = bearer(stranger.token);
    for (const std::string& path :
         {webhookPath(webhook), std::string("/v1/webhooks/whk_doesnotexist0000"),
          "/v1/webhooks/" + owner.companyId}) {
      E2E_ASSERT_ERROR(404, client.get(path, auth));
      E2E_ASSERT_ERROR(404, client.patch(path, Json::object({{"is_active", false}}), auth));
      E2E_ASSERT_ERROR(404, client.del(path, auth));
      E2E_ASSERT_ERROR(404, client.post(path + "/rotate-secret", Json::object(), auth));
      E2E_ASSERT_ERROR(404, client.post(path + "/ping", Json::object(), auth));
      E2E_ASSERT_ERROR(404, client.get(path + "/deliveries", auth));
      E2E_ASSERT_ERROR(404, client.get(path + "/deliveries/whd_x", auth));
      E2E_ASSERT_ERROR(404, client.post(path + "/deliveries/whd_x/retry", Json::object(), auth));
    }
    // A delivery id that does not exist under an existing webhook.
    E2E_ASSERT_ERROR(404,
                     client.get(webhookPath(webhook, "/deliveries/whd_x"), bearer(owner.token)));
    E2E_ASSERT_ERROR(404, client.post(webhookPath(webhook, "/deliveries/whd_x/retry"),
                                      Json::object(), bearer(owner.token)));
    // Untouched.
    const Json read = E2E_ASSERT_DATA(200, client.get(webhookPath(webhook), bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(true, read["is_active"].asBool());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0),
                         getBody(client, stranger.token, "/v1/webhooks")["meta"]["total"].asInt());
  }

  void testListPagination() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-list");
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i) {
      ids.push_back(createWebhook(client, account.token, hookUrl("/" + std::to_string(i)),
                                  kContactCreated)["id"]
                        .asString());
    }
    const std::vector<std::string> newestFirst(ids.rbegin(), ids.rend());
    const Json all = getBody(client, account.token, "/v1/webhooks");
    CPPUNIT_ASSERT(idsOf(all) == newestFirst);
    CPPUNIT_ASSERT_EQUAL(
        Json::object({{"current_page", 1}, {"per_page", 20}, {"total", 3}, {"last_page", 1}})
            .dump(),
        all["meta"].dump());
    for (const Json& webhook : all["data"].asArray()) assertReadShape(webhook);

    const Json first = getBody(client, account.token, "/v1/webhooks?per_page=2");
    CPPUNIT_ASSERT(idsOf(first) == (std::vector<std::string>{newestFirst[0], newestFirst[1]}));
    CPPUNIT_ASSERT_EQUAL(
        Json::object({{"current_page", 1}, {"per_page", 2}, {"total", 3}, {"last_page", 2}}).dump(),
        first["meta"].dump());
    const Json second = getBody(client, account.token, "/v1/webhooks?per_page=2&page=2");
    CPPUNIT_ASSERT(idsOf(second) == std::vector<std::string>{newestFirst[2]});
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), second["meta"]["current_page"].asInt());
    const Json past = getBody(client, account.token, "/v1/webhooks?per_page=2&page=9");
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), past["data"].size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), past["meta"]["total"].asInt());

    CRM_ASSERT_FIELD_ERROR(client.get("/v1/webhooks?per_page=101", bearer(account.token)),
                           "per_page", "");
    CRM_ASSERT_FIELD_ERROR(client.get("/v1/webhooks?page=0", bearer(account.token)), "page", "");
  }

  void testEventCatalogue() {
    HttpClient client(deliveryServer().port());
    const Account account = registerUser(client, "whk-catalogue");
    const Json data =
        E2E_ASSERT_DATA(200, client.get("/v1/webhooks/events", bearer(account.token)));
    std::map<std::string, std::string> seen;
    std::vector<std::string> order;
    for (const Json& item : data.asArray()) {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(item.dump(), std::size_t(3), item.size());
      CPPUNIT_ASSERT_MESSAGE(
          item.dump(), item["event"].isString() && item["description"].isString() &&
                           !item["description"].asString().empty() && item["module"].isString());
      seen[item["event"].asString()] = item["module"].asString();
      order.push_back(item["event"].asString());
    }
    CPPUNIT_ASSERT_MESSAGE(data.dump(), seen == kCatalogue);
    CPPUNIT_ASSERT_MESSAGE(data.dump(), std::is_sorted(order.begin(), order.end()));
  }

  // Decisions §11: a disabled module's events leave the catalogue and cannot
  // be subscribed to.
  void testCatalogueFollowsTheEnabledModules() {
    ServerProcess server(
        generousSettings({{"modules.enabled", "pipelines,contacts,companies,activities,webhooks"},
                          {"webhooks.allow_private_targets", "true"}}));
    HttpClient client(server.port());
    const Account account = registerUser(client, "whk-subset");
    const Json data =
        E2E_ASSERT_DATA(200, client.get("/v1/webhooks/events", bearer(account.token)));
    std::map<std::string, std::string> expected;
    for (const auto& [event, module] : kCatalogue) {
      if (module != "deals") expected.emplace(event, module);
    }
    std::map<std::string, std::string> seen;
    for (const Json& item : data.asArray()) {
      seen[item["event"].asString()] = item["module"].asString();
    }
    CPPUNIT_ASSERT_MESSAGE(data.dump(), seen == expected);
    CRM_ASSERT_FIELD_ERROR(
        client.post("/v1/webhooks",
                    Json::object({{"url", hookUrl()},
                                  {"events", eventsList({"crm.contact.created", "crm.deal.won"})}}),
                    bearer(account.token)),
        "events", "");
    createWebhook(client, account.token, hookUrl(), eventsList({"crm.activity.completed"}));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(WebhooksCrudTest);
