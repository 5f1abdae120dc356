// The life of a key through /v1/api-keys (decisions §15): the 201 with every
// member in its format (id key_..., key rk_ + 43 base64url characters,
// key_prefix its first 11, created_by the caller, expires_at and
// last_used_at); the key shown in that answer only (not in the list, GET,
// PATCH or DELETE answers) and stored in no column of api_keys; the list
// newest first with paging; PATCH of name and scopes (other members
// ignored); DELETE ("API key revoked.", then 404); 404 for an unknown id, a
// wrong prefix and another company's key; every 422 of name, scopes and
// expires_at; duplicate scopes dropped in order; every known scope accepted.
#include <cppunit/extensions/HelperMacros.h>

#include <regex>

#include "e2e/api_keys/ApiKeysSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::apikeys;

namespace {

// Every scope of the shared server (no products module there).
const std::vector<std::string> kEveryScope = {
    "contacts:read",  "contacts:write",  "companies:read",  "companies:write",
    "deals:read",     "deals:write",     "activities:read", "activities:write",
    "pipelines:read", "pipelines:write", "webhooks:manage", "events:read",
    "fields:manage",  "imports:write",   "exports:read",    "*"};

std::vector<std::string> withKey() {
  std::vector<std::string> members = kKeyMembers;
  members.push_back("key");
  std::sort(members.begin(), members.end());
  return members;
}

// `created` without its `key`: the key as every later answer shows it.
Json withoutSecret(const Json& created) {
  Json out = Json::object();
  for (const auto& [member, value] : created.asObject()) {
    if (member != "key") out.set(member, value);
  }
  return out;
}

// A 422 naming `member`, one of whose messages contains `text` (when given).
void assertRefusedOn(const std::string& member, const std::string& text, const HttpResult& result,
                     const CppUnit::SourceLine& line) {
  const Json body = crm::assertFieldError(result, member, "", line);
  if (text.empty()) return;
  for (const Json& message : body["errors"][member].asArray()) {
    if (message.asString().find(text) != std::string::npos) return;
  }
  CppUnit::Asserter::fail(
      CppUnit::Message("errors." + member + " does not name " + text, describe(result)), line);
}

#define KEYS_ASSERT_422(member, text, result) \
  assertRefusedOn((member), (text), (result), CPPUNIT_SOURCELINE())

}  // namespace

class KeysLifecycleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(KeysLifecycleTest);
  CPPUNIT_TEST(testCreateAnswersEveryMember);
  CPPUNIT_TEST(testExpiresAtIsKept);
  CPPUNIT_TEST(testKeyIsShownOnlyOnce);
  CPPUNIT_TEST(testKeyIsStoredInNoColumn);
  CPPUNIT_TEST(testListIsNewestFirstAndPages);
  CPPUNIT_TEST(testPatchChangesNameAndScopesOnly);
  CPPUNIT_TEST(testDeleteRevokesThen404);
  CPPUNIT_TEST(testUnknownWrongPrefixAndOtherCompanysKeyAre404);
  CPPUNIT_TEST(testNameIs422);
  CPPUNIT_TEST(testScopesAre422);
  CPPUNIT_TEST(testExpiresAtIs422);
  CPPUNIT_TEST(testPatchIs422LikeCreate);
  CPPUNIT_TEST(testDuplicateScopesAreDroppedInOrder);
  CPPUNIT_TEST(testEveryKnownScopeIsAccepted);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCreateAnswersEveryMember() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-create");
    const std::int64_t before = unixNow();
    const HttpResult result =
        client.post(kKeys,
                    Json::object({{"name", "Billing sync"},
                                  {"scopes", scopeList({"contacts:read", "deals:write"})}}),
                    bearer(owner.token));
    const Json key = E2E_ASSERT_DATA(201, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    CPPUNIT_ASSERT_EQUAL(std::string("Created"), result.reason);
    CPPUNIT_ASSERT_EQUAL(std::string("API key created."), result.json()["message"].asString());
    CPPUNIT_ASSERT_MESSAGE(key.dump(), memberNames(key) == withKey());

    const std::string id = key["id"].asString();
    CPPUNIT_ASSERT_MESSAGE(key.dump(), id.rfind("key_", 0) == 0 && id.size() > 4);
    CPPUNIT_ASSERT_EQUAL(std::string("Billing sync"), key["name"].asString());
    CPPUNIT_ASSERT(key["scopes"] == scopeList({"contacts:read", "deals:write"}));
    // rk_ + 32 random bytes in base64url without padding: 43 characters.
    const std::string secret = secretOf(key);
    CPPUNIT_ASSERT_MESSAGE(secret, std::regex_match(secret, std::regex("rk_[A-Za-z0-9_-]{43}")));
    CPPUNIT_ASSERT_EQUAL(secret.substr(0, 11), key["key_prefix"].asString());
    const std::int64_t created = E2E_ASSERT_ISO_UTC(key["created_at"]);
    CPPUNIT_ASSERT_MESSAGE(key.dump(), created >= before - 1 && created <= unixNow() + 1);
    CPPUNIT_ASSERT_MESSAGE(key.dump(), key["expires_at"].isNull());
    CPPUNIT_ASSERT_MESSAGE(key.dump(), key["last_used_at"].isNull());
    CPPUNIT_ASSERT_EQUAL(owner.userId, key["created_by"].asString());

    // Each key is its own: another id, another secret.
    const Json other = createKey(client, owner.token, {"contacts:read"});
    CPPUNIT_ASSERT(other["id"].asString() != id);
    CPPUNIT_ASSERT(secretOf(other) != secret);
    CPPUNIT_ASSERT(other["key_prefix"].asString() != key["key_prefix"].asString());
    // The new key works at once.
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secret)));
  }

  void testExpiresAtIsKept() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-expires");
    const std::string expiresAt = isoFromNow(86400);
    const Json key = createKey(client, owner.token, {"contacts:read"}, "Nightly",
                               Json::object({{"expires_at", expiresAt}}));
    const std::int64_t sent = *rapport::parseIsoTimestamp(expiresAt) / 1'000'000;
    const std::int64_t kept = E2E_ASSERT_ISO_UTC(key["expires_at"]);
    CPPUNIT_ASSERT_MESSAGE(key.dump(), kept >= sent - 1 && kept <= sent + 1);
    CPPUNIT_ASSERT_EQUAL(
        key["expires_at"].dump(),
        E2E_ASSERT_DATA(200, client.get(keyPath(key), bearer(owner.token)))["expires_at"].dump());
    // null is "never", as absent is.
    const Json never = createKey(client, owner.token, {"contacts:read"}, "Forever",
                                 Json::object({{"expires_at", Json()}}));
    CPPUNIT_ASSERT_MESSAGE(never.dump(), never["expires_at"].isNull());
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secretOf(never))));
  }

  void testKeyIsShownOnlyOnce() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-once");
    const Json created = createKey(client, owner.token, {"contacts:read"}, "Once");
    const std::string secret = secretOf(created);
    const std::string random = secret.substr(11);  // beyond the prefix
    const auto neverShows = [&](const HttpResult& result, const std::string& what) {
      CPPUNIT_ASSERT_MESSAGE(what + " shows the key: " + describe(result),
                             result.body.find(random) == std::string::npos);
    };

    const HttpResult list = client.get(kKeys, bearer(owner.token));
    const Json items = E2E_ASSERT_DATA(200, list);
    neverShows(list, "the list");
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, items.size());
    CPPUNIT_ASSERT_MESSAGE(list.body, memberNames(items.asArray()[0]) == kKeyMembers);
    CPPUNIT_ASSERT_EQUAL(withoutSecret(created).dump(), items.asArray()[0].dump());

    const HttpResult one = client.get(keyPath(created), bearer(owner.token));
    CPPUNIT_ASSERT_EQUAL(withoutSecret(created).dump(), E2E_ASSERT_DATA(200, one).dump());
    neverShows(one, "GET");

    const HttpResult patched =
        client.patch(keyPath(created), Json::object({{"name", "Renamed"}}), bearer(owner.token));
    const Json renamed = E2E_ASSERT_DATA(200, patched);
    CPPUNIT_ASSERT_MESSAGE(patched.body, memberNames(renamed) == kKeyMembers);
    neverShows(patched, "PATCH");

    const HttpResult deleted = client.del(keyPath(created), bearer(owner.token));
    E2E_ASSERT_DATA(200, deleted);
    neverShows(deleted, "DELETE");
  }

  // Stored as a hash: no column of its row holds the key, nor its random part.
  void testKeyIsStoredInNoColumn() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-hashed");
    const Json key = createKey(client, owner.token, {"contacts:read"});
    const std::string secret = secretOf(key);
    const auto rows = queryDatabase(keysServer().databaseUrl(), "SELECT * FROM api_keys");
    bool found = false;
    for (const auto& row : rows) {
      for (const std::string& value : row) {
        found = found || value == key["id"].asString();
        CPPUNIT_ASSERT_MESSAGE("api_keys holds the key: " + value,
                               value.find(secret.substr(11)) == std::string::npos);
      }
    }
    CPPUNIT_ASSERT_MESSAGE("the key's row is not in api_keys", found);
  }

  void testListIsNewestFirstAndPages() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-list");
    std::vector<std::string> ids;
    for (const char* name : {"First", "Second", "Third"}) {
      ids.insert(ids.begin(),
                 createKey(client, owner.token, {"contacts:read"}, name)["id"].asString());
    }
    const Json all = getBody(client, owner.token, kKeys);
    CPPUNIT_ASSERT(idsOf(all) == ids);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), all["meta"]["current_page"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), all["meta"]["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), all["meta"]["last_page"].asInt());

    const Json first = getBody(client, owner.token, kKeys + "?per_page=2");
    CPPUNIT_ASSERT(idsOf(first) == std::vector<std::string>(ids.begin(), ids.begin() + 2));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), first["meta"]["per_page"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), first["meta"]["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), first["meta"]["last_page"].asInt());
    const Json second = getBody(client, owner.token, kKeys + "?per_page=2&page=2");
    CPPUNIT_ASSERT(idsOf(second) == std::vector<std::string>{ids[2]});
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), second["meta"]["current_page"].asInt());
    const Json past = getBody(client, owner.token, kKeys + "?per_page=2&page=3");
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, past["data"].size());
    // Paging is checked as on every list.
    E2E_ASSERT_ERROR(422, client.get(kKeys + "?per_page=101", bearer(owner.token)));
    E2E_ASSERT_ERROR(422, client.get(kKeys + "?page=0", bearer(owner.token)));
  }

  void testPatchChangesNameAndScopesOnly() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-patch");
    const Json key = createKey(client, owner.token, {"contacts:read"}, "Before");
    const HttpResult renamed =
        client.patch(keyPath(key), Json::object({{"name", "  After  "}}), bearer(owner.token));
    Json now = E2E_ASSERT_DATA(200, renamed);
    CPPUNIT_ASSERT_EQUAL(std::string("After"), now["name"].asString());
    CPPUNIT_ASSERT(now["scopes"] == scopeList({"contacts:read"}));

    now = E2E_ASSERT_DATA(
        200, client.patch(keyPath(key),
                          Json::object({{"scopes", scopeList({"deals:read", "contacts:write"})}}),
                          bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("After"), now["name"].asString());
    CPPUNIT_ASSERT(now["scopes"] == scopeList({"deals:read", "contacts:write"}));

    // Every other member is ignored, expires_at included.
    const Json ignored =
        E2E_ASSERT_DATA(200, client.patch(keyPath(key),
                                          Json::object({{"id", "key_other"},
                                                        {"key", "rk_" + std::string(43, 'a')},
                                                        {"key_prefix", "rk_aaaaaaaa"},
                                                        {"created_by", "user_other"},
                                                        {"created_at", "2020-01-01T00:00:00Z"},
                                                        {"last_used_at", "2020-01-01T00:00:00Z"},
                                                        {"expires_at", isoFromNow(3600)}}),
                                          bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(now.dump(), ignored.dump());
    CPPUNIT_ASSERT_EQUAL(
        now.dump(), E2E_ASSERT_DATA(200, client.get(keyPath(key), bearer(owner.token))).dump());
    // The secret is still the one of the 201.
    E2E_ASSERT_DATA(200, client.get("/v1/crm/deals", bearer(secretOf(key))));
  }

  void testDeleteRevokesThen404() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-delete");
    const Json key = createKey(client, owner.token, {"contacts:read"});
    const Json kept = createKey(client, owner.token, {"contacts:read"}, "Kept");
    const HttpResult deleted = client.del(keyPath(key), bearer(owner.token));
    const Json data = E2E_ASSERT_DATA(200, deleted);
    E2E_ASSERT_COMMON_HEADERS(deleted);
    CPPUNIT_ASSERT_EQUAL(std::string("API key revoked."), deleted.json()["message"].asString());
    CPPUNIT_ASSERT_EQUAL(Json::object({{"id", key["id"]}}).dump(), data.dump());

    E2E_ASSERT_ERROR(404, client.get(keyPath(key), bearer(owner.token)));
    E2E_ASSERT_ERROR(
        404, client.patch(keyPath(key), Json::object({{"name", "x"}}), bearer(owner.token)));
    E2E_ASSERT_ERROR(404, client.del(keyPath(key), bearer(owner.token)));
    CPPUNIT_ASSERT(idsOf(getBody(client, owner.token, kKeys)) ==
                   std::vector<std::string>{kept["id"].asString()});
    KEYS_ASSERT_401(client.get("/v1/crm/contacts", bearer(secretOf(key))));
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secretOf(kept))));
  }

  void testUnknownWrongPrefixAndOtherCompanysKeyAre404() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-404");
    const Account other = registerUser(client, "keys-404-other");
    const Json theirs = createKey(client, other.token, {"contacts:read"});
    const Json mine = createKey(client, owner.token, {"contacts:read"});
    const std::string suffix = mine["id"].asString().substr(4);
    for (const std::string& path : {kKeys + "/key_" + randomHex(20), kKeys + "/cont_" + suffix,
                                    kKeys + "/" + suffix, keyPath(theirs)}) {
      E2E_ASSERT_ERROR(404, client.get(path, bearer(owner.token)));
      E2E_ASSERT_ERROR(
          404, client.patch(path, Json::object({{"name", "Mine now"}}), bearer(owner.token)));
      E2E_ASSERT_ERROR(404, client.del(path, bearer(owner.token)));
    }
    // The other company's key is untouched and still works.
    const Json still = E2E_ASSERT_DATA(200, client.get(keyPath(theirs), bearer(other.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("Sync"), still["name"].asString());
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secretOf(theirs))));
  }

  void testNameIs422() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-name");
    const Json scopes = scopeList({"contacts:read"});
    for (const Json& body :
         {Json::object({{"scopes", scopes}}), Json::object({{"name", ""}, {"scopes", scopes}}),
          Json::object({{"name", "   "}, {"scopes", scopes}}),
          Json::object({{"name", Json()}, {"scopes", scopes}}),
          Json::object({{"name", 42}, {"scopes", scopes}}),
          Json::object({{"name", std::string(101, 'n')}, {"scopes", scopes}})}) {
      KEYS_ASSERT_422("name", "", client.post(kKeys, body, bearer(owner.token)));
    }
    // 100 characters after trimming are enough.
    const Json longest =
        createKey(client, owner.token, {"contacts:read"}, "  " + std::string(100, 'n') + "  ");
    CPPUNIT_ASSERT_EQUAL(std::string(100, 'n'), longest["name"].asString());
    // None of the refused ones was made.
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, getBody(client, owner.token, kKeys)["data"].size());
  }

  void testScopesAre422() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-scopes");
    const auto post = [&](const Json& scopes) {
      return client.post(kKeys, Json::object({{"name", "Bad"}, {"scopes", scopes}}),
                         bearer(owner.token));
    };
    KEYS_ASSERT_422("scopes", "",
                    client.post(kKeys, Json::object({{"name", "Bad"}}), bearer(owner.token)));
    KEYS_ASSERT_422("scopes", "", post(Json()));
    KEYS_ASSERT_422("scopes", "", post(Json::array()));
    KEYS_ASSERT_422("scopes", "", post(Json("contacts:read")));
    KEYS_ASSERT_422("scopes", "", post(Json::object({{"contacts", "read"}})));
    KEYS_ASSERT_422("scopes", "", post(Json(Json::Array{Json(7)})));
    // An unknown scope is named.
    KEYS_ASSERT_422("scopes", "contacts:delete", post(scopeList({"contacts:delete"})));
    KEYS_ASSERT_422("scopes", "nosuch:read", post(scopeList({"contacts:read", "nosuch:read"})));
    KEYS_ASSERT_422("scopes", "products:read", post(scopeList({"products:read"})));
    KEYS_ASSERT_422("scopes", "CONTACTS:READ", post(scopeList({"CONTACTS:READ"})));
    KEYS_ASSERT_422("scopes", "contacts:manage", post(scopeList({"contacts:manage"})));
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, getBody(client, owner.token, kKeys)["data"].size());
  }

  void testExpiresAtIs422() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-expiry-422");
    for (const Json& expiresAt :
         {Json("tomorrow"), Json("2031-13-01T00:00:00Z"), Json("2031-02-30T00:00:00Z"), Json(""),
          Json(1893456000), Json(true), Json(isoFromNow(-60)), Json("2020-01-01T00:00:00Z")}) {
      KEYS_ASSERT_422("expires_at", "",
                      client.post(kKeys,
                                  Json::object({{"name", "Bad"},
                                                {"scopes", scopeList({"contacts:read"})},
                                                {"expires_at", expiresAt}}),
                                  bearer(owner.token)));
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, getBody(client, owner.token, kKeys)["data"].size());
  }

  void testPatchIs422LikeCreate() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-patch-422");
    const Json key = createKey(client, owner.token, {"contacts:read"}, "Steady");
    const auto patch = [&](const Json& body) {
      return client.patch(keyPath(key), body, bearer(owner.token));
    };
    KEYS_ASSERT_422("name", "", patch(Json::object({{"name", " "}})));
    KEYS_ASSERT_422("name", "", patch(Json::object({{"name", std::string(101, 'n')}})));
    KEYS_ASSERT_422("scopes", "", patch(Json::object({{"scopes", Json::array()}})));
    KEYS_ASSERT_422("scopes", "", patch(Json::object({{"scopes", "contacts:read"}})));
    KEYS_ASSERT_422("scopes", "nosuch:read",
                    patch(Json::object({{"scopes", scopeList({"nosuch:read"})}})));
    // Nothing changed.
    CPPUNIT_ASSERT_EQUAL(
        withoutSecret(key).dump(),
        E2E_ASSERT_DATA(200, client.get(keyPath(key), bearer(owner.token))).dump());
  }

  void testDuplicateScopesAreDroppedInOrder() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-duplicates");
    const Json key = createKey(client, owner.token,
                               {"deals:read", "contacts:read", "deals:read", "contacts:read"});
    CPPUNIT_ASSERT_EQUAL(scopeList({"deals:read", "contacts:read"}).dump(), key["scopes"].dump());
    const Json patched = E2E_ASSERT_DATA(
        200,
        client.patch(keyPath(key),
                     Json::object({{"scopes", scopeList({"events:read", "*", "events:read"})}}),
                     bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(scopeList({"events:read", "*"}).dump(), patched["scopes"].dump());
  }

  void testEveryKnownScopeIsAccepted() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "keys-every-scope");
    const Json key = createKey(client, owner.token, kEveryScope);
    CPPUNIT_ASSERT_EQUAL(scopeList(kEveryScope).dump(), key["scopes"].dump());
    for (const std::string& scope : kEveryScope) {
      const Json one = createKey(client, owner.token, {scope}, "Only " + scope);
      CPPUNIT_ASSERT_EQUAL(scopeList({scope}).dump(), one["scopes"].dump());
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(KeysLifecycleTest);
