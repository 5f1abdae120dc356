// API keys in the request path (decisions §15): what a route declares in
// RouteOptions::scope, what a key's scopes grant, the 403s a key gets, and
// its own rate-limit counter. Users are never asked for a scope.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>

#include "Fakes.h"
#include "http/Pipeline.h"
#include "http/Router.h"
#include "http/VersionPolicy.h"
#include "log/Log.h"
#include "rapport/error.h"
#include "rapport/scopes.h"
#include "ratelimit/MemoryRateLimitStore.h"

using rapport::Json;
using rapport::Request;
using rapport::Response;
using rapport::host::MemoryRateLimitStore;
using rapport::host::Pipeline;
using rapport::host::RawRequest;
using rapport::host::RawResponse;
using rapport::host::Router;
using rapport::host::VersionPolicy;
using rapport::test::FakeAuthenticator;
using rapport::test::FakeConfig;

namespace {

Response whoAmI(const Request& request) {
  return Response::ok(Json::object({{"principal", request.identity.principalId()}}));
}

class KeyScopesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(KeyScopesTest);
  CPPUNIT_TEST(testRequiredScopeByMethod);
  CPPUNIT_TEST(testWhatScopesGrant);
  CPPUNIT_TEST(testDeclarationsChecked);
  CPPUNIT_TEST(testRouterListsTheScopes);
  CPPUNIT_TEST(testRouteWithoutScopeRefusesKeys);
  CPPUNIT_TEST(testPublicRouteWithoutScopeRefusesKeys);
  CPPUNIT_TEST(testReadAndWriteBoundary);
  CPPUNIT_TEST(testExactScopeAndEveryKey);
  CPPUNIT_TEST(testUsersAreNeverAskedForScopes);
  CPPUNIT_TEST(testEachKeyCountsAlone);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    rapport::host::log::setLevel(rapport::host::log::Level::Error);
    router_ = std::make_unique<Router>();
    router_->add("GET", "/v1/things", whoAmI, {.scope = "things"}, "things");
    router_->add("POST", "/v1/things", whoAmI, {.scope = "things"}, "things");
    router_->add("POST", "/v1/things/search", whoAmI, {.scope = "things:read"}, "things");
    router_->add("GET", "/v1/hooks", whoAmI, {.scope = "webhooks:manage"}, "webhooks");
    router_->add("GET", "/v1/me", whoAmI, {.scope = std::string(rapport::kAnyApiKey)}, "accounts");
    router_->add("GET", "/v1/profile", whoAmI, {}, "accounts");
    router_->add("POST", "/v1/login", whoAmI, {.access = rapport::Access::Public}, "accounts");
    router_->add("GET", "/v1/open", whoAmI,
                 {.access = rapport::Access::Public, .scope = std::string(rapport::kAnyApiKey)},
                 "host");
    router_->add("POST", "/v1/owners", whoAmI, {.roles = {rapport::Role::Owner}, .scope = "things"},
                 "things");
    auth_.addKey("key-read", "key_r", {"things:read"});
    auth_.addKey("key-write", "key_w", {"things:write"});
    auth_.addKey("key-all", "key_all", {"*"});
    auth_.addKey("key-hooks", "key_h", {"webhooks:manage"});
    auth_.addKey("key-read-2", "key_r2", {"things:read"});
    policy_ = std::make_unique<VersionPolicy>(config_);
    store_ = std::make_unique<MemoryRateLimitStore>();
    rapport::host::PipelineOptions options;
    options.rateLimitRequests = 3;
    pipeline_ = std::make_unique<Pipeline>(*router_, auth_, *store_, *policy_, options);
  }

  void testRequiredScopeByMethod() {
    CPPUNIT_ASSERT_EQUAL(std::string("contacts:read"), rapport::requiredScope("contacts", "GET"));
    CPPUNIT_ASSERT_EQUAL(std::string("contacts:write"), rapport::requiredScope("contacts", "POST"));
    CPPUNIT_ASSERT_EQUAL(std::string("contacts:write"),
                         rapport::requiredScope("contacts", "DELETE"));
    CPPUNIT_ASSERT_EQUAL(std::string("contacts:read"),
                         rapport::requiredScope("contacts:read", "POST"));
    CPPUNIT_ASSERT_EQUAL(std::string(), rapport::requiredScope("", "GET"));
  }

  void testWhatScopesGrant() {
    CPPUNIT_ASSERT(rapport::grantsScope({"contacts:read"}, "contacts:read"));
    CPPUNIT_ASSERT(rapport::grantsScope({"contacts:write"}, "contacts:read"));
    CPPUNIT_ASSERT(!rapport::grantsScope({"contacts:read"}, "contacts:write"));
    CPPUNIT_ASSERT(!rapport::grantsScope({"contacts:write"}, "companies:read"));
    CPPUNIT_ASSERT(!rapport::grantsScope({"contacts:write"}, "webhooks:manage"));
    CPPUNIT_ASSERT(rapport::grantsScope({"*"}, "webhooks:manage"));
    CPPUNIT_ASSERT(rapport::grantsScope({}, rapport::kAnyApiKey));
    CPPUNIT_ASSERT(!rapport::grantsScope({"*"}, ""));
    // A write of another resource whose name ends the same way grants nothing.
    CPPUNIT_ASSERT(!rapport::grantsScope({"xcontacts:write"}, "contacts:read"));
  }

  void testDeclarationsChecked() {
    for (const char* good : {"", "contacts", "webhooks:manage", "*", "my_module-2:read"}) {
      CPPUNIT_ASSERT_MESSAGE(good, rapport::isValidScopeDeclaration(good));
    }
    for (const char* bad : {"Contacts", "a:b:c", ":read", "contacts:", "2fa", "a b"}) {
      CPPUNIT_ASSERT_MESSAGE(bad, !rapport::isValidScopeDeclaration(bad));
    }
    CPPUNIT_ASSERT_THROW(router_->add("GET", "/v1/bad", whoAmI, {.scope = "Bad:Scope"}, "x"),
                         std::logic_error);
  }

  void testRouterListsTheScopes() {
    const std::vector<std::string> scopes = router_->scopes();
    for (const char* scope : {"things:read", "things:write", "webhooks:manage", "events:read",
                              "fields:manage", "imports:write", "exports:read", "*"}) {
      CPPUNIT_ASSERT_MESSAGE(scope, std::find(scopes.begin(), scopes.end(), scope) != scopes.end());
    }
    CPPUNIT_ASSERT(std::is_sorted(scopes.begin(), scopes.end()));
    CPPUNIT_ASSERT(std::find(scopes.begin(), scopes.end(), std::string(rapport::kAnyApiKey)) ==
                   scopes.end());
  }

  void testRouteWithoutScopeRefusesKeys() {
    for (const char* key : {"key-all", "key-write"}) {
      const RawResponse r = call("GET", "/v1/profile", key);
      CPPUNIT_ASSERT_EQUAL(403, r.status);
      CPPUNIT_ASSERT_EQUAL(std::string("API keys cannot use this route."),
                           Json::parse(r.body)["message"].asString());
    }
  }

  void testPublicRouteWithoutScopeRefusesKeys() {
    // An account route anyone may call (login, refresh) is still one a key
    // may not: 403, where a user's token or none is served.
    const RawResponse refused = call("POST", "/v1/login", "key-all", "10.0.0.1");
    CPPUNIT_ASSERT_EQUAL(403, refused.status);
    CPPUNIT_ASSERT_EQUAL(std::string("API keys cannot use this route."),
                         Json::parse(refused.body)["message"].asString());
    CPPUNIT_ASSERT_EQUAL(200, call("POST", "/v1/login", "member-token", "10.0.0.2").status);
    CPPUNIT_ASSERT_EQUAL(200, call("POST", "/v1/login", "not-a-known-token", "10.0.0.3").status);
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/open", "key-read", "10.0.0.4").status);
  }

  void testReadAndWriteBoundary() {
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/things", "key-read").status);
    CPPUNIT_ASSERT_EQUAL(200, call("POST", "/v1/things/search", "key-read").status);
    const RawResponse refused = call("POST", "/v1/things", "key-read");
    CPPUNIT_ASSERT_EQUAL(403, refused.status);
    CPPUNIT_ASSERT_EQUAL(std::string("This API key lacks the scope things:write."),
                         Json::parse(refused.body)["message"].asString());
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/things", "key-write").status);
    CPPUNIT_ASSERT_EQUAL(200, call("POST", "/v1/things", "key-write").status);
    const RawResponse other = call("GET", "/v1/things", "key-hooks");
    CPPUNIT_ASSERT_EQUAL(403, other.status);
    CPPUNIT_ASSERT_EQUAL(std::string("This API key lacks the scope things:read."),
                         Json::parse(other.body)["message"].asString());
    // The key's role (admin) still counts: an owners' route stays closed.
    CPPUNIT_ASSERT_EQUAL(403, call("POST", "/v1/owners", "key-all").status);
  }

  void testExactScopeAndEveryKey() {
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/hooks", "key-hooks").status);
    CPPUNIT_ASSERT_EQUAL(403, call("GET", "/v1/hooks", "key-write").status);
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/hooks", "key-all").status);
    const RawResponse me = call("GET", "/v1/me", "key-read");
    CPPUNIT_ASSERT_EQUAL(200, me.status);
    CPPUNIT_ASSERT_EQUAL(std::string("key_r"),
                         Json::parse(me.body)["data"]["principal"].asString());
  }

  void testUsersAreNeverAskedForScopes() {
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/profile", "member-token").status);
    CPPUNIT_ASSERT_EQUAL(200, call("POST", "/v1/things", "member-token").status);
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/hooks", "member-token").status);
  }

  void testEachKeyCountsAlone() {
    for (int i = 0; i < 3; ++i)
      CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/things", "key-read").status);
    CPPUNIT_ASSERT_EQUAL(429, call("GET", "/v1/things", "key-read").status);
    // Another key of the same company, and a user, have budgets of their own.
    const RawResponse other = call("GET", "/v1/things", "key-read-2");
    CPPUNIT_ASSERT_EQUAL(200, other.status);
    CPPUNIT_ASSERT_EQUAL(std::string("2"), *other.header("X-RateLimit-Remaining"));
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/things", "admin-token").status);
  }

 private:
  // `client`: public routes count per client address.
  RawResponse call(const std::string& method, const std::string& path, const std::string& token,
                   const std::string& client = "127.0.0.1") {
    RawRequest raw;
    raw.method = method;
    raw.path = path;
    raw.headers = {{"Authorization", "Bearer " + token}};
    raw.clientAddress = client;
    return pipeline_->handle(raw);
  }

  FakeAuthenticator auth_;
  FakeConfig config_;
  std::unique_ptr<Router> router_;
  std::unique_ptr<VersionPolicy> policy_;
  std::unique_ptr<MemoryRateLimitStore> store_;
  std::unique_ptr<Pipeline> pipeline_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(KeyScopesTest);

}  // namespace
