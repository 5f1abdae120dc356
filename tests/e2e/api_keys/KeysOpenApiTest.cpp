// API keys in GET /v1/openapi.json (decisions §15, the contract's
// "OpenAPI"): components.securitySchemes.apiKey is the bearer scheme with
// bearerFormat "rk_..." beside bearerAuth; each operation a key may call
// names its scope in x-rapport-scope and has security [{bearerAuth: []},
// {apiKey: []}] (a requirement lists scopes for OAuth2 schemes only); an
// operation refused to keys has no x-rapport-scope and security
// [{bearerAuth: []}] alone (its own or the document's).
#include <cppunit/extensions/HelperMacros.h>

#include <tuple>

#include "e2e/api_keys/ApiKeysSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::apikeys;

namespace {

const Json& document() {
  static const Json doc = [] {
    HttpClient client(keysServer().port());
    const HttpResult result = client.get("/v1/openapi.json");
    E2E_ASSERT_STATUS(200, result);
    return result.json();
  }();
  return doc;
}

// The operation `method` (lower case) of `path`; fails when absent.
const Json& operation(const std::string& method, const std::string& path) {
  const Json* item = document()["paths"].find(path);
  const Json* op = item == nullptr ? nullptr : item->find(method);
  if (op == nullptr) CPPUNIT_FAIL("no operation " + method + " " + path + " in the document");
  return *op;
}

// A user's token or an API key.
Json tokenOrKey() {
  return Json(Json::Array{Json::object({{"bearerAuth", Json::array()}}),
                          Json::object({{"apiKey", Json::array()}})});
}

Json userSecurityOnly() {
  return Json(Json::Array{Json::object({{"bearerAuth", Json::array()}})});
}

// The security that applies to `op`: its own, or the document's.
const Json& effectiveSecurity(const Json& op) {
  return op.contains("security") ? op["security"] : document()["security"];
}

}  // namespace

class KeysOpenApiTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(KeysOpenApiTest);
  CPPUNIT_TEST(testApiKeySchemeBesideBearerAuth);
  CPPUNIT_TEST(testEachKeyOperationNamesItsScope);
  CPPUNIT_TEST(testAccountOperationsHaveNoKeySecurity);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testApiKeySchemeBesideBearerAuth() {
    const Json& schemes = document()["components"]["securitySchemes"];
    CPPUNIT_ASSERT_MESSAGE(schemes.dump(), schemes.contains("bearerAuth"));
    const Json& apiKey = schemes["apiKey"];
    CPPUNIT_ASSERT_EQUAL_MESSAGE(apiKey.dump(), std::string("http"), apiKey["type"].asString());
    CPPUNIT_ASSERT_EQUAL_MESSAGE(apiKey.dump(), std::string("bearer"), apiKey["scheme"].asString());
    CPPUNIT_ASSERT_EQUAL_MESSAGE(apiKey.dump(), std::string("rk_..."),
                                 apiKey["bearerFormat"].asString());
  }

  void testEachKeyOperationNamesItsScope() {
    const std::vector<std::tuple<std::string, std::string, std::string>> table = {
        {"get", "/v1/crm/contacts", "contacts:read"},
        {"post", "/v1/crm/contacts", "contacts:write"},
        {"post", "/v1/crm/contacts/search", "contacts:read"},
        {"post", "/v1/crm/contacts/batch", "contacts:write"},
        {"get", "/v1/crm/contacts/{id}", "contacts:read"},
        {"patch", "/v1/crm/contacts/{id}", "contacts:write"},
        {"delete", "/v1/crm/contacts/{id}", "contacts:write"},
        {"get", "/v1/crm/companies/{id}/contacts", "contacts:read"},
        {"get", "/v1/crm/companies", "companies:read"},
        {"post", "/v1/crm/deals/{id}/win", "deals:write"},
        {"get", "/v1/crm/activities", "activities:read"},
        {"get", "/v1/crm/pipelines", "pipelines:read"},
        {"post", "/v1/crm/pipelines/{id}/stages", "pipelines:write"},
        {"get", "/v1/crm/contacts/fields", "contacts:read"},
        {"post", "/v1/crm/contacts/fields", "fields:manage"},
        {"get", "/v1/webhooks/events", "webhooks:manage"},
        {"post", "/v1/webhooks", "webhooks:manage"},
        {"get", "/v1/events", "events:read"},
    };
    std::string failures;
    for (const auto& [method, path, scope] : table) {
      const Json& op = operation(method, path);
      if (!(op["x-rapport-scope"] == Json(scope)) || !(op["security"] == tokenOrKey())) {
        failures += "\n" + method + " " + path + " (expected " + scope + "): x-rapport-scope " +
                    op["x-rapport-scope"].dump() + ", security " + op["security"].dump();
      }
    }
    CPPUNIT_ASSERT_MESSAGE(failures, failures.empty());
    // Every operation that names a scope offers the apiKey scheme, and
    // every one that offers it names a scope, but those open to any key
    // whatever it holds (they need no scope to name).
    std::vector<std::string> anyKey;
    for (const auto& [path, item] : document()["paths"].asObject()) {
      for (const auto& [method, op] : item.asObject()) {
        if (!op.isObject()) continue;
        const bool offersKeys = effectiveSecurity(op) == tokenOrKey();
        if (offersKeys && !op.contains("x-rapport-scope")) {
          anyKey.push_back(method + " " + path);
        } else {
          CPPUNIT_ASSERT_MESSAGE(method + " " + path + ": " + op.dump().substr(0, 300),
                                 offersKeys == op.contains("x-rapport-scope"));
        }
      }
    }
    std::sort(anyKey.begin(), anyKey.end());
    CPPUNIT_ASSERT_EQUAL(std::string("get /v1/auth/me, get /v1/errors/sample"), [&] {
      std::string out;
      for (const auto& op : anyKey) out += (out.empty() ? "" : ", ") + op;
      return out;
    }());
    CPPUNIT_ASSERT(operation("get", "/v1/auth/me")["security"] == tokenOrKey());
  }

  void testAccountOperationsHaveNoKeySecurity() {
    const std::vector<std::pair<std::string, std::string>> table = {
        {"get", "/v1/api-keys"},        {"post", "/v1/api-keys"},
        {"get", "/v1/api-keys/{id}"},   {"delete", "/v1/api-keys/{id}"},
        {"get", "/v1/company/members"}, {"get", "/v1/user/profile"},
        {"get", "/v1/user/companies"},  {"post", "/v1/auth/logout"},
        {"post", "/v1/auth/context"},
    };
    std::string failures;
    for (const auto& [method, path] : table) {
      const Json& op = operation(method, path);
      if (op.contains("x-rapport-scope") || !(effectiveSecurity(op) == userSecurityOnly())) {
        failures += "\n" + method + " " + path + ": x-rapport-scope " +
                    op["x-rapport-scope"].dump() + ", security " + effectiveSecurity(op).dump();
      }
    }
    CPPUNIT_ASSERT_MESSAGE(failures, failures.empty());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(KeysOpenApiTest);
