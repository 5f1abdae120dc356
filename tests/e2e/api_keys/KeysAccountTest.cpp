// Who a key is (decisions §15): only owners and admins manage keys (a member
// gets 403 "No permission." on every /api-keys route); a key gets 403 "API
// keys cannot use this route." on every account route (/api-keys,
// /company/members, /user/*, /auth/* but GET /auth/me, the public ones such
// as login and register included) whatever its scopes; GET /auth/me
// describes the key; /v1/versions, the health probes and the API document
// take any key; unknown, malformed and altered keys are 401 like bad tokens;
// a key acts in the company it was made in (another company's records are
// 404, a header naming another company is ignored, its creator switching
// companies changes nothing) and outlives its creator's membership. A route
// whose module declared no scope (the probe fixture module's) is refused to
// every key, `*` included (deny by default).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/api_keys/ApiKeysSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::apikeys;

class KeysAccountTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(KeysAccountTest);
  CPPUNIT_TEST(testMembersAre403OnEveryKeyRoute);
  CPPUNIT_TEST(testAdminsManageTheCompanysKeys);
  CPPUNIT_TEST(testKeyIsRefusedOnEveryAccountRoute);
  CPPUNIT_TEST(testAuthMeDescribesTheKey);
  CPPUNIT_TEST(testUnknownMalformedOrAlteredKeysAre401);
  CPPUNIT_TEST(testKeySeesOnlyItsCompany);
  CPPUNIT_TEST(testKeyStaysInItsCompanyWhenTheCreatorSwitches);
  CPPUNIT_TEST(testKeySurvivesItsCreatorsRemoval);
  CPPUNIT_TEST(testRouteWithoutAScopeIsRefused);
  CPPUNIT_TEST(testUtilityRoutesTakeAnyKey);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testMembersAre403OnEveryKeyRoute() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-members");
    const Account member = joinAs(client, owner, "member", "keys-member");
    const Json key = createKey(client, owner.token, {"contacts:read"});
    const Json body = Json::object({{"name", "Mine"}, {"scopes", scopeList({"contacts:read"})}});
    const std::vector<Call> table = {
        {"GET", kKeys, std::nullopt, 403, kNoPermission},
        {"POST", kKeys, body, 403, kNoPermission},
        {"GET", keyPath(key), std::nullopt, 403, kNoPermission},
        {"PATCH", keyPath(key), Json::object({{"name", "Taken"}}), 403, kNoPermission},
        {"DELETE", keyPath(key), std::nullopt, 403, kNoPermission},
    };
    KEYS_RUN_TABLE(client, member.token, table);
    // Nothing changed: one key, its name, and it still works.
    const Json list = getBody(client, owner.token, kKeys);
    CPPUNIT_ASSERT(idsOf(list) == std::vector<std::string>{key["id"].asString()});
    CPPUNIT_ASSERT_EQUAL(std::string("Sync"), list["data"].asArray()[0]["name"].asString());
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secretOf(key))));
  }

  void testAdminsManageTheCompanysKeys() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-admins");
    const Account admin = joinAs(client, owner, "admin", "keys-admin");
    const Json ownersKey = createKey(client, owner.token, {"contacts:read"}, "Owner's");
    const Json adminsKey = createKey(client, admin.token, {"deals:read"}, "Admin's");
    CPPUNIT_ASSERT_EQUAL(admin.userId, adminsKey["created_by"].asString());
    // One list for the company, whoever made them.
    const std::vector<std::string> both = {adminsKey["id"].asString(), ownersKey["id"].asString()};
    CPPUNIT_ASSERT(idsOf(getBody(client, admin.token, kKeys)) == both);
    CPPUNIT_ASSERT(idsOf(getBody(client, owner.token, kKeys)) == both);
    E2E_ASSERT_DATA(200, client.patch(keyPath(ownersKey), Json::object({{"name", "Renamed"}}),
                                      bearer(admin.token)));
    E2E_ASSERT_DATA(200, client.del(keyPath(ownersKey), bearer(admin.token)));
    KEYS_ASSERT_401(client.get("/v1/crm/contacts", bearer(secretOf(ownersKey))));
    E2E_ASSERT_DATA(200, client.del(keyPath(adminsKey), bearer(owner.token)));
  }

  // Account routes refuse every key, `*` included, before anything else
  // (the body, the id): nothing changes.
  void testKeyIsRefusedOnEveryAccountRoute() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-account-routes");
    const Account other = registerUser(client, "keys-account-other");
    const Account admin = joinAs(client, owner, "admin", "keys-account-admin");
    const Json key = createKey(client, owner.token, {"*"}, "Everything");
    const Json sibling = createKey(client, owner.token, {"contacts:read"}, "Sibling");
    const std::string secret = secretOf(key);
    const Json newKey = Json::object({{"name", "Child"}, {"scopes", scopeList({"*"})}});
    Account newcomer;
    newcomer.name = "Newcomer";
    newcomer.email = uniqueEmail("keys-newcomer");
    newcomer.password = "correct horse " + randomHex(6);
    newcomer.companyName = "Newcomer Ltd";
    const std::vector<Call> table = {
        refused("GET", kKeys),
        refused("POST", kKeys, newKey),
        refused("GET", keyPath(key)),
        refused("GET", keyPath(sibling)),
        refused("PATCH", keyPath(sibling), Json::object({{"scopes", scopeList({"*"})}})),
        refused("DELETE", keyPath(sibling)),
        refused("DELETE", keyPath(key)),
        refused("GET", "/v1/company/members"),
        refused("POST", "/v1/company/members",
                Json::object({{"email", other.email}, {"role", "admin"}})),
        refused("PATCH", "/v1/company/members/" + admin.userId, Json::object({{"role", "member"}})),
        refused("DELETE", "/v1/company/members/" + admin.userId),
        refused("GET", "/v1/user/profile"),
        refused("PATCH", "/v1/user/profile", Json::object({{"name", "Hijacked"}})),
        refused("PATCH", "/v1/user/password",
                Json::object({{"current_password", owner.password},
                              {"password", "new password 123"},
                              {"password_confirmation", "new password 123"}})),
        refused("GET", "/v1/user/companies"),
        refused("POST", "/v1/user/companies", Json::object({{"name", "Key's own"}})),
        refused("GET", "/v1/user/companies/" + owner.companyId),
        refused("GET", "/v1/user/identities"),
        refused("DELETE", "/v1/user/identities/google"),
        refused("POST", "/v1/auth/logout"),
        refused("POST", "/v1/auth/refresh"),
        refused("POST", "/v1/auth/context", Json::object({{"company_id", owner.companyId}})),
        refused("POST", "/v1/auth/email/verification"),
        refused("POST", "/v1/auth/2fa/enable", Json::object({{"password", owner.password}})),
        refused("POST", "/v1/auth/2fa/confirm", Json::object({{"code", "123456"}})),
        refused("POST", "/v1/auth/2fa/recovery-codes",
                Json::object({{"password", owner.password}})),
        refused("DELETE", "/v1/auth/2fa"),
        // Public account routes too, when a valid key comes with them.
        refused("POST", "/v1/auth/login",
                Json::object({{"email", owner.email}, {"password", owner.password}})),
        refused("POST", "/v1/auth/register", registrationBody(newcomer)),
        refused("POST", "/v1/auth/forgot-password", Json::object({{"email", owner.email}})),
        refused("POST", "/v1/auth/reset-password",
                Json::object({{"email", owner.email},
                              {"token", "not-a-token"},
                              {"password", "new password 123"},
                              {"password_confirmation", "new password 123"}})),
        refused("POST", "/v1/auth/email/verify", Json::object({{"token", "not-a-token"}})),
        refused("POST", "/v1/auth/two-factor/challenge",
                Json::object({{"challenge_token", "x"}, {"code", "123456"}})),
        refused("POST", "/v1/auth/social/exchange", Json::object({{"code", "x"}})),
        refused("GET", "/v1/auth/social/google/redirect"),
    };
    KEYS_RUN_TABLE(client, secret, table);

    // Nothing the refused calls asked for happened.
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, getBody(client, owner.token, kKeys)["data"].size());
    const Json members = getBody(client, owner.token, "/v1/company/members")["data"];
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, members.size());
    for (const Json& member : members.asArray()) {
      if (member["user_id"].asString() == admin.userId) {
        CPPUNIT_ASSERT_EQUAL(std::string("admin"), member["role"].asString());
      }
    }
    const Json profile = getBody(client, owner.token, "/v1/user/profile")["data"];
    CPPUNIT_ASSERT_EQUAL(owner.name, profile["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t{1},
                         getBody(client, owner.token, "/v1/user/companies")["data"].size());
    E2E_ASSERT_DATA(200, login(client, owner.email, owner.password));
    E2E_ASSERT_ERROR(401, login(client, newcomer.email, newcomer.password));
    // Both keys still work, and so does the owner's token.
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secret)));
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secretOf(sibling))));
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(owner.token)));
  }

  void testAuthMeDescribesTheKey() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-me");
    const Json key = createKey(client, owner.token, {"contacts:read", "events:read"}, "Reporter");
    const HttpResult result = client.get("/v1/auth/me", bearer(secretOf(key)));
    const Json me = E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    CPPUNIT_ASSERT_EQUAL(Json::object({{"company_id", owner.companyId},
                                       {"id", key["id"]},
                                       {"name", "Reporter"},
                                       {"scopes", scopeList({"contacts:read", "events:read"})},
                                       {"type", "api_key"}})
                             .dump(),
                         Json::object({{"company_id", me["company_id"]},
                                       {"id", me["id"]},
                                       {"name", me["name"]},
                                       {"scopes", me["scopes"]},
                                       {"type", me["type"]}})
                             .dump());
    CPPUNIT_ASSERT_MESSAGE(
        me.dump(), memberNames(me) ==
                       (std::vector<std::string>{"company_id", "id", "name", "scopes", "type"}));
    // Any key may ask who it is, whatever its scopes.
    const Json narrow = createKey(client, owner.token, {"webhooks:manage"}, "Hooks");
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(secretOf(narrow))));
  }

  void testUnknownMalformedOrAlteredKeysAre401() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-401");
    const std::string secret = secretOf(createKey(client, owner.token, {"*"}));
    std::string altered = secret;
    altered.back() = altered.back() == 'A' ? 'B' : 'A';
    for (const std::string& token :
         {std::string("rk_"), std::string("rk_short"), "rk_" + std::string(43, 'A'),
          "rk_" + randomHex(43), altered, secret + "A", secret.substr(0, secret.size() - 1),
          secret.substr(0, 11), "RK_" + secret.substr(3), secret.substr(3), "rk_" + secret}) {
      for (const std::string& path : {std::string("/v1/crm/contacts"), std::string("/v1/auth/me"),
                                      kKeys, std::string("/v1/user/profile")}) {
        KEYS_ASSERT_401(client.get(path, bearer(token)));
      }
    }
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secret)));
  }

  void testKeySeesOnlyItsCompany() {
    HttpClient client(keysServer().port());
    const Account a = registerUser(client, "keys-tenant-a");
    const Account b = registerUser(client, "keys-tenant-b");
    const Json keyA = createKey(client, a.token, {"*"}, "A's");
    const Json keyB = createKey(client, b.token, {"*"}, "B's");
    const Json mine = createContact(client, a.token, Json::object({{"name", "Mine"}}));
    const Json theirs = createContact(client, b.token, Json::object({{"name", "Theirs"}}));
    const std::string secret = secretOf(keyA);
    const std::string theirPath = "/v1/crm/contacts/" + theirs["id"].asString();

    E2E_ASSERT_ERROR(404, client.get(theirPath, bearer(secret)));
    E2E_ASSERT_ERROR(404,
                     client.patch(theirPath, Json::object({{"name", "Mine now"}}), bearer(secret)));
    E2E_ASSERT_ERROR(404, client.del(theirPath, bearer(secret)));
    // A header naming the other company changes nothing.
    E2E_ASSERT_ERROR(404, client.get(theirPath, bearer(secret, {{"X-Company-Id", b.companyId}})));
    CPPUNIT_ASSERT(
        idsOf(getBody(client, secret, "/v1/crm/contacts", {{"X-Company-Id", b.companyId}})) ==
        std::vector<std::string>{mine["id"].asString()});
    // B's contact is as B left it.
    CPPUNIT_ASSERT_EQUAL(std::string("Theirs"),
                         getBody(client, b.token, theirPath)["data"]["name"].asString());
    // A's list of keys holds A's key only; B's key is 404 to A's owner.
    CPPUNIT_ASSERT(idsOf(getBody(client, a.token, kKeys)) ==
                   std::vector<std::string>{keyA["id"].asString()});
    E2E_ASSERT_ERROR(404, client.get(keyPath(keyB), bearer(a.token)));
    // And the key's /auth/me names A.
    CPPUNIT_ASSERT_EQUAL(a.companyId,
                         getBody(client, secret, "/v1/auth/me")["data"]["company_id"].asString());
  }

  void testKeyStaysInItsCompanyWhenTheCreatorSwitches() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-switch");
    const Json keyA = createKey(client, owner.token, {"contacts:write"}, "In A");
    const std::string companyB = createCompany(client, owner.token, "Keys Second");
    const std::string tokenB = switchContext(client, owner.token, companyB);

    const Json made = createContact(client, secretOf(keyA), Json::object({{"name", "For A"}}));
    const std::string path = "/v1/crm/contacts/" + made["id"].asString();
    E2E_ASSERT_DATA(200, client.get(path, bearer(owner.token)));
    E2E_ASSERT_ERROR(404, client.get(path, bearer(tokenB)));
    CPPUNIT_ASSERT_EQUAL(
        owner.companyId,
        getBody(client, secretOf(keyA), "/v1/auth/me")["data"]["company_id"].asString());
    // B's keys are B's: made with the switched token, listed there only.
    const Json keyB = createKey(client, tokenB, {"contacts:read"}, "In B");
    CPPUNIT_ASSERT_EQUAL(
        companyB, getBody(client, secretOf(keyB), "/v1/auth/me")["data"]["company_id"].asString());
    E2E_ASSERT_ERROR(404, client.get(path, bearer(secretOf(keyB))));
    CPPUNIT_ASSERT(idsOf(getBody(client, tokenB, kKeys)) ==
                   std::vector<std::string>{keyB["id"].asString()});
    CPPUNIT_ASSERT(idsOf(getBody(client, owner.token, kKeys)) ==
                   std::vector<std::string>{keyA["id"].asString()});
  }

  void testKeySurvivesItsCreatorsRemoval() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-survive");
    const Account admin = joinAs(client, owner, "admin", "keys-leaver");
    const Json key = createKey(client, admin.token, {"contacts:write"}, "Left behind");
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secretOf(key))));

    E2E_ASSERT_STATUS(200, client.del("/v1/company/members/" + admin.userId, bearer(owner.token)));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/contacts", bearer(admin.token)));
    // The key is the company's: it reads and writes as before.
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secretOf(key))));
    const Json made =
        createContact(client, secretOf(key), Json::object({{"name", "After the leaver"}}));
    E2E_ASSERT_DATA(200,
                    client.get("/v1/crm/contacts/" + made["id"].asString(), bearer(owner.token)));
    const Json kept = E2E_ASSERT_DATA(200, client.get(keyPath(key), bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(admin.userId, kept["created_by"].asString());
  }

  // The probe fixture module declares no scope for its routes: a key, even
  // with `*`, is refused there as on an account route; a token is not.
  void testRouteWithoutAScopeIsRefused() {
    ServerProcess server(probeSettings());
    HttpClient client(server.port());
    const Account owner = registerUser(client, "keys-no-scope");
    const std::string star = secretOf(createKey(client, owner.token, {"*"}));
    const Json note = Json::object({{"body", "From a key"}});
    KEYS_ASSERT_REFUSED(client.post("/v1/probe/notes", note, bearer(star)));
    KEYS_ASSERT_REFUSED(client.get("/v1/probe/admin", bearer(star)));
    const Json made =
        E2E_ASSERT_DATA(201, client.post("/v1/probe/notes", note, bearer(owner.token)));
    KEYS_ASSERT_REFUSED(client.get("/v1/probe/notes/" + made["id"].asString(), bearer(star)));
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(star)));
  }

  // The versions, the health probes and the API document take any key.
  void testUtilityRoutesTakeAnyKey() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-utility");
    const std::string key = secretOf(createKey(client, owner.token, {"deals:read"}));
    E2E_ASSERT_DATA(200, client.get("/v1/versions", bearer(key)));
    E2E_ASSERT_STATUS(200, client.get("/healthz", bearer(key)));
    E2E_ASSERT_STATUS(200, client.get("/readyz", bearer(key)));
    const HttpResult document = client.get("/v1/openapi.json", bearer(key));
    E2E_ASSERT_STATUS(200, document);
    CPPUNIT_ASSERT(E2E_ASSERT_JSON(document)["paths"].isObject());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(KeysAccountTest);
