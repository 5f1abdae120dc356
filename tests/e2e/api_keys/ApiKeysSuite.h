// The servers and helpers of e2e.api_keys (decisions §15): keys made through
// POST /v1/api-keys, the exact 403 messages of the contract, and a table of
// calls (method, path, body, the expected status and, on a 403, the exact
// message) run with one key, in the style of e2e.roles.
//
// The shared server runs every first-party module, webhooks included, with
// the delivery settings of e2e.webhooks (a test receiver on loopback) and
// the generous rate limit; the tests of rate limits start their own.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "e2e/common/CallTable.h"
#include "e2e/webhooks/WebhooksSuite.h"
#include "rapport/time.h"

namespace rapport::e2e::apikeys {

using namespace rapport::e2e::webhooks;

inline const std::string kKeys = "/v1/api-keys";
// The 403 of every account route to a key.
inline const std::string kKeyRefused = "API keys cannot use this route.";
// The 403 of an owner-or-admin route to a member.
inline const std::string kNoPermission = "No permission.";
// The members of a key as every answer but the 201 shows it.
inline const std::vector<std::string> kKeyMembers = {
    "created_at", "created_by", "expires_at", "id", "key_prefix", "last_used_at", "name", "scopes"};

// The server most tests share.
inline ServerProcess& keysServer() {
  static ServerProcess server(deliverySettings());
  return server;
}

// "This API key lacks the scope <scope>."
inline std::string lacks(const std::string& scope) {
  return "This API key lacks the scope " + scope + ".";
}

inline Json scopeList(const std::vector<std::string>& scopes) {
  Json list = Json::array();
  for (const auto& scope : scopes) list.push(Json(scope));
  return list;
}

// POST /v1/api-keys {name, scopes} (+ `extra` members) as `token`, asserting
// 201; returns data, the key included.
inline Json createKey(HttpClient& client, const std::string& token,
                      const std::vector<std::string>& scopes, const std::string& name = "Sync",
                      const Json& extra = Json::object()) {
  Json body = Json::object({{"name", name}, {"scopes", scopeList(scopes)}});
  for (const auto& [member, value] : extra.asObject()) body.set(member, value);
  return E2E_ASSERT_DATA(201, client.post(kKeys, body, bearer(token)));
}

// The secret of a created key ("rk_...").
inline std::string secretOf(const Json& created) {
  return created["key"].asString();
}

inline std::string keyPath(const Json& key) {
  return kKeys + "/" + key["id"].asString();
}

// The member names of `object`, sorted.
inline std::vector<std::string> memberNames(const Json& object) {
  std::vector<std::string> names;
  for (const auto& [name, value] : object.asObject()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

// `seconds` from now as the API writes timestamps (ISO-8601 UTC, "Z").
inline std::string isoFromNow(std::int64_t seconds) {
  return rapport::isoTimestamp(rapport::nowMicros() + seconds * 1'000'000);
}

// 401 like a bad token: the error envelope and WWW-Authenticate: Bearer.
inline void assertUnauthorized(const HttpResult& result, const CppUnit::SourceLine& line) {
  assertError(401, result, line);
  if (result.header("WWW-Authenticate").rfind("Bearer", 0) != 0) {
    CppUnit::Asserter::fail(
        CppUnit::Message("401 without WWW-Authenticate: Bearer", describe(result)), line);
  }
}

#define KEYS_ASSERT_LACKS(scope, result) \
  CRM_ASSERT_ERROR_MESSAGE(403, ::rapport::e2e::apikeys::lacks(scope), (result))
#define KEYS_ASSERT_REFUSED(result) \
  CRM_ASSERT_ERROR_MESSAGE(403, ::rapport::e2e::apikeys::kKeyRefused, (result))
#define KEYS_ASSERT_401(result) \
  ::rapport::e2e::apikeys::assertUnauthorized((result), CPPUNIT_SOURCELINE())

// ---------------------------------------------------------------- tables

// The call as allowed (2xx) or refused for lack of `scope`.
inline Call allowed(std::string method, std::string path, int status = 200,
                    std::optional<Json> body = std::nullopt) {
  return {std::move(method), std::move(path), std::move(body), status, ""};
}
inline Call lacking(const std::string& scope, std::string method, std::string path,
                    std::optional<Json> body = std::nullopt) {
  return {std::move(method), std::move(path), std::move(body), 403, lacks(scope)};
}
inline Call refused(std::string method, std::string path, std::optional<Json> body = std::nullopt) {
  return {std::move(method), std::move(path), std::move(body), 403, kKeyRefused};
}

#define KEYS_RUN_TABLE(client, token, table) E2E_RUN_TABLE((client), (token), (table))

// ---------------------------------------------------------------- records

// The records of the owner's company the tables work on (CrmApi.h).
struct World : CrmRecords {
  Account owner;
};

inline World buildWorld(HttpClient& client, const std::string& label) {
  World w;
  w.owner = registerUser(client, label);
  static_cast<CrmRecords&>(w) = createCrmRecords(client, w.owner.token);
  return w;
}

// How many rows of each CRM table the owner's company holds ("contacts=3 ..."):
// what a refused call must leave as it was.
inline std::string recordCounts(const ServerProcess& server, const std::string& companyId) {
  std::string out;
  for (const char* table : {"contacts", "crm_companies", "deals", "activities", "pipelines"}) {
    out += std::string(table) + "=" +
           queryDatabase(server.databaseUrl(), std::string("SELECT COUNT(*) FROM ") + table +
                                                   " WHERE company_id = " + sqlQuote(companyId))
               .front()
               .front() +
           " ";
  }
  return out;
}

}  // namespace rapport::e2e::apikeys
