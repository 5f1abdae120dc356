// Pipeline: the whole request path without sockets: envelopes, errors,
// headers on every response, rate limiting, authentication and roles, body
// and query parsing, deprecation and sunset, request ids, utility routes.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "http/Pipeline.h"
#include "http/UtilityRoutes.h"
#include "log/Log.h"
#include "rapport/error.h"
#include "rapport/time.h"
#include "ratelimit/MemoryRateLimitStore.h"
#include "unit/http/Fakes.h"

using rapport::Error;
using rapport::Json;
using rapport::Request;
using rapport::Response;
using rapport::host::MemoryRateLimitStore;
using rapport::host::Pipeline;
using rapport::host::PipelineOptions;
using rapport::host::RawRequest;
using rapport::host::RawResponse;
using rapport::host::ReadState;
using rapport::host::Router;
using rapport::host::VersionPolicy;
using rapport::test::FakeAuthenticator;
using rapport::test::FakeConfig;

using rapport::test::publicAccess;

namespace {

rapport::RouteOptions adminsOnly() {
  rapport::RouteOptions options;
  options.roles = {rapport::Role::Owner, rapport::Role::Admin};
  return options;
}

// Echoes what the handler was given, so tests can see the parsed request.
Response echo(const Request& request) {
  Json params = Json::object();
  for (const auto& [k, v] : request.pathParams) params.set(k, v);
  Json query = Json::object();
  for (const auto& [k, v] : request.query) query.set(k, v);
  return Response::ok(
      Json::object({{"params", params},
                    {"query", query},
                    {"body", request.body},
                    {"has_body", request.hasBody},
                    {"user", request.identity.userId},
                    {"authenticated", request.identity.authenticated},
                    {"version", request.apiVersion},
                    {"request_id", request.requestId},
                    {"client", request.clientAddress},
                    {"company_header", request.header("X-Company-Id").has_value()}}));
}

FakeConfig policyConfig() {
  return FakeConfig{{"versions", "v1,v0"},
                    {"versions.v0.status", "sunset"},
                    {"deprecations", "legacy,ended"},
                    {"deprecations.legacy.prefix", "/v1/legacy"},
                    {"deprecations.legacy.deprecated_at", "2026-01-15"},
                    {"deprecations.legacy.sunset_at", "2027-01-01"},
                    {"deprecations.legacy.link", "https://docs.rapport.dev/migrate"},
                    {"deprecations.ended.prefix", "/v1/ended"},
                    {"deprecations.ended.deprecated_at", "2025-01-01"},
                    {"deprecations.ended.sunset_at", "2026-02-01T00:00:00Z"}};
}

}  // namespace

class PipelineTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(PipelineTest);
  CPPUNIT_TEST(testSuccessEnvelope);
  CPPUNIT_TEST(testListEnvelopeAndMessageOnly);
  CPPUNIT_TEST(testHandlerStatusWithData);
  CPPUNIT_TEST(testValidationErrorsOnlyOn422);
  CPPUNIT_TEST(testInternalErrorHidesDetails);
  CPPUNIT_TEST(testErrorHeadersKept);
  CPPUNIT_TEST(testNotFoundAndMethodNotAllowed);
  CPPUNIT_TEST(testHeadersOnEveryResponse);
  CPPUNIT_TEST(testTooManyRequests);
  CPPUNIT_TEST(testRateLimitPerTokenAndAddress);
  CPPUNIT_TEST(testRateLimitWindowResets);
  CPPUNIT_TEST(testPublicRoutesCountedPerClientWhateverToken);
  CPPUNIT_TEST(testClientsCountedByClientKey);
  CPPUNIT_TEST(testHealthProbesNotCounted);
  CPPUNIT_TEST(testAuthentication);
  CPPUNIT_TEST(testRoles);
  CPPUNIT_TEST(testBodies);
  CPPUNIT_TEST(testMalformedBodies);
  CPPUNIT_TEST(testBodyFraming);
  CPPUNIT_TEST(testHostRefusals);
  CPPUNIT_TEST(testQueryAndParams);
  CPPUNIT_TEST(testCompanyHeaderIgnored);
  CPPUNIT_TEST(testRequestIds);
  CPPUNIT_TEST(testDeprecationHeaders);
  CPPUNIT_TEST(testSunsetPathGone);
  CPPUNIT_TEST(testSunsetVersionGone);
  CPPUNIT_TEST(testVersionsRoute);
  CPPUNIT_TEST(testErrorSamples);
  CPPUNIT_TEST(testHealthAndReadiness);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    rapport::host::log::setLevel(rapport::host::log::Level::Error);
    now_ = *rapport::parseIsoTimestamp("2026-06-15T12:00:20Z");
    router_ = std::make_unique<Router>();
    config_ = policyConfig();
    policy_ = std::make_unique<VersionPolicy>(config_);
    store_ = std::make_unique<MemoryRateLimitStore>();
    rapport::host::registerUtilityRoutes(
        *router_, *policy_, [this] { return ready_; }, [this] { return readyClock_; });
    router_->add("GET", "/v1/echo/{id}", echo, publicAccess(), "echo");
    router_->add("POST", "/v1/echo", echo, publicAccess(), "echo");
    router_->add("PATCH", "/v1/echo", echo, publicAccess(), "echo");
    router_->add("DELETE", "/v1/echo", echo, publicAccess(), "echo");
    router_->add("GET", "/v1/me", echo, {}, "accounts");
    router_->add("POST", "/v1/admin", echo, adminsOnly(), "webhooks");
    router_->add(
        "GET", "/v1/list",
        [](const Request&) {
          return Response::list(Json::array(), Json::object({{"current_page", 1}}));
        },
        publicAccess(), "contacts");
    router_->add(
        "POST", "/v1/win", [](const Request&) { return Response::messageOnly("Deal won."); },
        publicAccess(), "deals");
    router_->add(
        "POST", "/v1/login",
        [](const Request&) {
          Response r = Response::ok(Json::object({{"two_factor_required", true}}),
                                    "Two-factor authentication required.");
          r.status = 403;
          return r;
        },
        publicAccess(), "accounts");
    router_->add(
        "GET", "/v1/invalid",
        [](const Request&) -> Response {
          throw Error::validation({{"name", {"The name field is required."}}});
        },
        publicAccess(), "contacts");
    router_->add(
        "GET", "/v1/conflict",
        [](const Request&) -> Response {
          throw Error(409, "Duplicate value.", {{"email", {"taken"}}});
        },
        publicAccess(), "contacts");
    router_->add(
        "GET", "/v1/crash",
        [](const Request&) -> Response {
          throw std::runtime_error("password=hunter2 at db.cpp:42");
        },
        publicAccess(), "deals");
    router_->add(
        "GET", "/v1/teapot", [](const Request&) -> Response { throw Error(418, "teapot"); },
        publicAccess(), "deals");
    router_->add(
        "GET", "/v1/busy",
        [](const Request&) -> Response { throw Error(409, "Busy.").withHeader("X-Extra", "1"); },
        publicAccess(), "deals");
    router_->add("GET", "/v1/legacy/items", echo, publicAccess(), "legacy");
    router_->add("GET", "/v1/ended/items", echo, publicAccess(), "legacy");
    router_->add("GET", "/v0/old", echo, publicAccess(), "legacy");
    makePipeline(PipelineOptions{});
  }

  void testSuccessEnvelope() {
    const RawResponse r = call("GET", "/v1/echo/cont_1");
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    const Json body = Json::parse(r.body);
    CPPUNIT_ASSERT_EQUAL(std::string("OK."), body["message"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("cont_1"), body["data"]["params"]["id"].asString());
    CPPUNIT_ASSERT(!body.contains("meta"));
    CPPUNIT_ASSERT_EQUAL(std::string("application/json; charset=utf-8"), *r.header("Content-Type"));
  }

  void testListEnvelopeAndMessageOnly() {
    const RawResponse list = call("GET", "/v1/list");
    CPPUNIT_ASSERT_EQUAL(
        std::string("{\"message\":\"OK.\",\"data\":[],\"meta\":{\"current_page\":1}}"), list.body);
    const RawResponse won = call("POST", "/v1/win");
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"Deal won.\"}"), won.body);
  }

  void testHandlerStatusWithData() {
    const RawResponse r = call("POST", "/v1/login", "{}");
    CPPUNIT_ASSERT_EQUAL(403, r.status);
    CPPUNIT_ASSERT(Json::parse(r.body)["data"]["two_factor_required"].asBool());
  }

  void testValidationErrorsOnlyOn422() {
    const RawResponse invalid = call("GET", "/v1/invalid");
    CPPUNIT_ASSERT_EQUAL(422, invalid.status);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"The name field is required.\",\"errors\":{"
                                     "\"name\":[\"The name field is required.\"]}}"),
                         invalid.body);
    const RawResponse conflict = call("GET", "/v1/conflict");
    CPPUNIT_ASSERT_EQUAL(409, conflict.status);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"Duplicate value.\"}"), conflict.body);
  }

  void testInternalErrorHidesDetails() {
    const RawResponse r = call("GET", "/v1/crash");
    CPPUNIT_ASSERT_EQUAL(500, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"Internal error.\"}"), r.body);
    // An Error with a status that is not an error status is a bug too.
    const RawResponse teapot = call("GET", "/v1/teapot");
    CPPUNIT_ASSERT_EQUAL(418, teapot.status);
    const RawResponse odd =
        callWithHandler([](const Request&) -> Response { throw Error(302, "redirect?"); });
    CPPUNIT_ASSERT_EQUAL(500, odd.status);
    const RawResponse weird = callWithHandler([](const Request&) {
      Response r = Response::ok(Json());
      r.status = 99;
      return r;
    });
    CPPUNIT_ASSERT_EQUAL(500, weird.status);
    CPPUNIT_ASSERT(weird.header("X-RateLimit-Limit") != nullptr);
  }

  void testErrorHeadersKept() {
    const RawResponse r = call("GET", "/v1/busy");
    CPPUNIT_ASSERT_EQUAL(std::string("1"), *r.header("X-Extra"));
  }

  void testNotFoundAndMethodNotAllowed() {
    const RawResponse missing = call("GET", "/v1/nothing/here");
    CPPUNIT_ASSERT_EQUAL(404, missing.status);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"Not found.\"}"), missing.body);
    CPPUNIT_ASSERT_EQUAL(404, call("GET", "/v1/echo/cont_1/").status);
    CPPUNIT_ASSERT_EQUAL(404, call("GET", "/v9/versions").status);
    const RawResponse wrong = call("PUT", "/v1/echo");
    CPPUNIT_ASSERT_EQUAL(405, wrong.status);
    CPPUNIT_ASSERT_EQUAL(std::string("DELETE, PATCH, POST"), *wrong.header("Allow"));
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"Method not allowed.\"}"), wrong.body);
  }

  void testHeadersOnEveryResponse() {
    for (const RawResponse& r :
         {call("GET", "/v1/nothing"), call("GET", "/v1/me"), call("GET", "/v1/crash"),
          call("GET", "/v1/echo/x"), call("PUT", "/v1/echo")}) {
      CPPUNIT_ASSERT(r.header("X-RateLimit-Limit") != nullptr);
      CPPUNIT_ASSERT(r.header("X-RateLimit-Remaining") != nullptr);
      CPPUNIT_ASSERT(r.header("X-RateLimit-Reset") != nullptr);
      CPPUNIT_ASSERT(r.header("X-Request-Id") != nullptr);
      CPPUNIT_ASSERT(r.header("Content-Type") != nullptr);
    }
  }

  void testTooManyRequests() {
    makePipeline(PipelineOptions{2, 60, {}});
    const RawResponse first = call("GET", "/v1/echo/a");
    CPPUNIT_ASSERT_EQUAL(std::string("2"), *first.header("X-RateLimit-Limit"));
    CPPUNIT_ASSERT_EQUAL(std::string("1"), *first.header("X-RateLimit-Remaining"));
    // 12:00:20 is in the window [12:00:00, 12:01:00).
    const std::int64_t reset = *rapport::parseIsoTimestamp("2026-06-15T12:01:00Z") / 1'000'000;
    CPPUNIT_ASSERT_EQUAL(std::to_string(reset), *first.header("X-RateLimit-Reset"));
    call("GET", "/v1/nothing");  // a 404 counts too
    const RawResponse limited = call("GET", "/v1/echo/a");
    CPPUNIT_ASSERT_EQUAL(429, limited.status);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"Too many requests.\"}"), limited.body);
    CPPUNIT_ASSERT_EQUAL(std::string("40"), *limited.header("Retry-After"));
    CPPUNIT_ASSERT_EQUAL(std::string("0"), *limited.header("X-RateLimit-Remaining"));
    CPPUNIT_ASSERT_EQUAL(std::string("2"), *limited.header("X-RateLimit-Limit"));
  }

  void testRateLimitPerTokenAndAddress() {
    makePipeline(PipelineOptions{1, 60, {}});
    CPPUNIT_ASSERT_EQUAL(
        200, call("GET", "/v1/me", "", {{"Authorization", "Bearer member-token"}}).status);
    CPPUNIT_ASSERT_EQUAL(
        429, call("GET", "/v1/me", "", {{"Authorization", "Bearer member-token"}}).status);
    // Another token of the same user has its own count (API, Limits).
    CPPUNIT_ASSERT_EQUAL(
        200, call("GET", "/v1/me", "", {{"Authorization", "Bearer member-token-2"}}).status);
    // Unauthenticated calls are counted per client address.
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/echo/a").status);
    CPPUNIT_ASSERT_EQUAL(429, call("GET", "/v1/echo/a").status);
    // An invalid token counts against the address, not a token.
    CPPUNIT_ASSERT_EQUAL(429,
                         call("GET", "/v1/echo/a", "", {{"Authorization", "Bearer nope"}}).status);
    RawRequest other = request("GET", "/v1/echo/a");
    other.clientAddress = "10.0.0.9";
    CPPUNIT_ASSERT_EQUAL(200, pipeline_->handle(other).status);
  }

  // A public route (login, register, forgot-password...) counts against the
  // client, even with a valid token: a token must not buy a fresh budget.
  void testPublicRoutesCountedPerClientWhateverToken() {
    makePipeline(PipelineOptions{2, 60, {}});
    const rapport::Headers token{{"Authorization", "Bearer member-token"}};
    const RawResponse first = call("POST", "/v1/echo", "{}", token);
    CPPUNIT_ASSERT_EQUAL(200, first.status);
    // The route still sees the identity; only the counting changed.
    CPPUNIT_ASSERT_EQUAL(std::string("user_m"), Json::parse(first.body)["data"]["user"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("1"), *first.header("X-RateLimit-Remaining"));
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/echo/a").status);  // same address, no token
    CPPUNIT_ASSERT_EQUAL(429, call("POST", "/v1/echo", "{}", token).status);
    CPPUNIT_ASSERT_EQUAL(
        429, call("POST", "/v1/echo", "{}", {{"Authorization", "Bearer member-token-2"}}).status);
    // Authenticated routes still count per token.
    const RawResponse me = call("GET", "/v1/me", "", token);
    CPPUNIT_ASSERT_EQUAL(200, me.status);
    CPPUNIT_ASSERT_EQUAL(std::string("1"), *me.header("X-RateLimit-Remaining"));
  }

  // Per-address counts use the client key: an IPv6 /64 is one client, an
  // IPv4-mapped address is its IPv4 address.
  void testClientsCountedByClientKey() {
    makePipeline(PipelineOptions{1, 60, {}});
    const auto from = [this](const std::string& address) {
      RawRequest raw = request("GET", "/v1/echo/a");
      raw.clientAddress = address;
      return pipeline_->handle(raw).status;
    };
    CPPUNIT_ASSERT_EQUAL(200, from("2001:db8:0:1::1"));
    CPPUNIT_ASSERT_EQUAL(429, from("2001:db8:0:1:aaaa:bbbb:cccc:dddd"));
    CPPUNIT_ASSERT_EQUAL(200, from("2001:db8:0:2::1"));
    CPPUNIT_ASSERT_EQUAL(200, from("192.0.2.5"));
    CPPUNIT_ASSERT_EQUAL(429, from("::ffff:192.0.2.5"));
    CPPUNIT_ASSERT_EQUAL(200, from("192.0.2.6"));
  }

  void testRateLimitWindowResets() {
    makePipeline(PipelineOptions{1, 60, {}});
    call("GET", "/v1/echo/a");
    CPPUNIT_ASSERT_EQUAL(429, call("GET", "/v1/echo/a").status);
    now_ += 40'000'000;  // 12:01:00, the next window
    const RawResponse r = call("GET", "/v1/echo/a");
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("0"), *r.header("X-RateLimit-Remaining"));
  }

  void testHealthProbesNotCounted() {
    makePipeline(PipelineOptions{2, 60, {}});
    for (int i = 0; i < 5; ++i) {
      const RawResponse r = call("GET", "/healthz");
      CPPUNIT_ASSERT_EQUAL(200, r.status);
      CPPUNIT_ASSERT_EQUAL(std::string("2"), *r.header("X-RateLimit-Remaining"));
    }
    call("GET", "/v1/echo/a");
    call("GET", "/v1/echo/a");
    const RawResponse health = call("GET", "/readyz");
    CPPUNIT_ASSERT_EQUAL(200, health.status);  // probes still answer when the budget is spent
    CPPUNIT_ASSERT_EQUAL(std::string("0"), *health.header("X-RateLimit-Remaining"));
  }

  void testAuthentication() {
    const RawResponse none = call("GET", "/v1/me");
    CPPUNIT_ASSERT_EQUAL(401, none.status);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"Not authenticated.\"}"), none.body);
    CPPUNIT_ASSERT_EQUAL(std::string("Bearer"), *none.header("WWW-Authenticate"));
    CPPUNIT_ASSERT_EQUAL(401, call("GET", "/v1/me", "", {{"Authorization", "Bearer bad"}}).status);
    CPPUNIT_ASSERT_EQUAL(
        401, call("GET", "/v1/me", "", {{"Authorization", "Basic member-token"}}).status);
    const RawResponse ok = call("GET", "/v1/me", "", {{"authorization", "bearer  member-token "}});
    CPPUNIT_ASSERT_EQUAL(200, ok.status);
    CPPUNIT_ASSERT_EQUAL(std::string("user_m"), Json::parse(ok.body)["data"]["user"].asString());
    // Public routes ignore a bad token and still see a good one.
    const RawResponse pub = call("GET", "/v1/echo/x", "", {{"Authorization", "Bearer bad"}});
    CPPUNIT_ASSERT_EQUAL(200, pub.status);
    CPPUNIT_ASSERT(!Json::parse(pub.body)["data"]["authenticated"].asBool());
    const RawResponse known =
        call("GET", "/v1/echo/x", "", {{"Authorization", "Bearer admin-token"}});
    CPPUNIT_ASSERT_EQUAL(std::string("user_a"), Json::parse(known.body)["data"]["user"].asString());
  }

  void testRoles() {
    const RawResponse member =
        call("POST", "/v1/admin", "", {{"Authorization", "Bearer member-token"}});
    CPPUNIT_ASSERT_EQUAL(403, member.status);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"No permission.\"}"), member.body);
    CPPUNIT_ASSERT_EQUAL(
        200, call("POST", "/v1/admin", "", {{"Authorization", "Bearer admin-token"}}).status);
    CPPUNIT_ASSERT_EQUAL(
        200, call("POST", "/v1/admin", "", {{"Authorization", "Bearer owner-token"}}).status);
    CPPUNIT_ASSERT_EQUAL(401, call("POST", "/v1/admin").status);  // 401 before 403
  }

  void testBodies() {
    const Json posted = Json::parse(call("POST", "/v1/echo", "{\"name\":\"Ann\"}").body)["data"];
    CPPUNIT_ASSERT(posted["has_body"].asBool());
    CPPUNIT_ASSERT_EQUAL(std::string("Ann"), posted["body"]["name"].asString());
    // An empty POST or PATCH body reads as absent.
    const Json empty = Json::parse(call("POST", "/v1/echo").body)["data"];
    CPPUNIT_ASSERT(!empty["has_body"].asBool());
    CPPUNIT_ASSERT(empty["body"].isNull());
    CPPUNIT_ASSERT_EQUAL(200, call("PATCH", "/v1/echo").status);
    // DELETE with a body is parsed; GET bodies are ignored.
    CPPUNIT_ASSERT(
        Json::parse(call("DELETE", "/v1/echo", "{\"a\":1}").body)["data"]["has_body"].asBool());
    const RawResponse get = call("GET", "/v1/echo/x", "not json");
    CPPUNIT_ASSERT_EQUAL(200, get.status);
    CPPUNIT_ASSERT(!Json::parse(get.body)["data"]["has_body"].asBool());
  }

  void testMalformedBodies() {
    for (const char* body : {"{\"name\":", "[1,2]", "\"text\"", "42", "null", "{} {}"}) {
      const RawResponse r = call("POST", "/v1/echo", body);
      CPPUNIT_ASSERT_EQUAL(400, r.status);
      CPPUNIT_ASSERT(Json::parse(r.body)["message"].asString().rfind("Malformed request", 0) == 0);
      CPPUNIT_ASSERT(!Json::parse(r.body).contains("errors"));
    }
    CPPUNIT_ASSERT_EQUAL(400, call("DELETE", "/v1/echo", "[]").status);
  }

  void testBodyFraming() {
    RawRequest large = request("POST", "/v1/echo");
    large.readState = ReadState::TooLarge;
    CPPUNIT_ASSERT_EQUAL(413, pipeline_->handle(large).status);
    RawRequest broken = request("POST", "/v1/echo");
    broken.readState = ReadState::Incomplete;
    CPPUNIT_ASSERT_EQUAL(400, pipeline_->handle(broken).status);
  }

  // RFC 9112 §3.2: 400 in the envelope, with a message that says what to fix.
  void testHostRefusals() {
    const std::pair<ReadState, std::string> cases[] = {
        {ReadState::HostMissing, "The Host header is required."},
        {ReadState::HostRepeated, "Only one Host header is allowed."},
    };
    for (const auto& [state, message] : cases) {
      RawRequest raw = request("GET", "/v1/echo/a");
      raw.readState = state;
      const RawResponse r = pipeline_->handle(raw);
      CPPUNIT_ASSERT_EQUAL(400, r.status);
      CPPUNIT_ASSERT_EQUAL("{\"message\":\"" + message + "\"}", r.body);
      CPPUNIT_ASSERT(r.header("X-Request-Id") && r.header("X-RateLimit-Remaining"));
    }
  }

  void testQueryAndParams() {
    RawRequest raw = request("GET", "/v1/echo/cont%5F1");
    raw.query = "search=ann+lee&tag=vip&tag=other&email=a%2Bb%40x.io";
    const Json data = Json::parse(pipeline_->handle(raw).body)["data"];
    CPPUNIT_ASSERT_EQUAL(std::string("cont_1"), data["params"]["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("ann lee"), data["query"]["search"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("vip"), data["query"]["tag"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("a+b@x.io"), data["query"]["email"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("v1"), data["version"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), data["client"].asString());
  }

  void testCompanyHeaderIgnored() {
    const RawResponse r =
        call("GET", "/v1/me", "",
             {{"Authorization", "Bearer member-token"}, {"X-Company-Id", "comp_9"}});
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    CPPUNIT_ASSERT(!Json::parse(r.body)["data"]["company_header"].asBool());
  }

  void testRequestIds() {
    const RawResponse echoed = call("GET", "/v1/echo/x", "", {{"X-Request-Id", "abc.DEF_1-2"}});
    CPPUNIT_ASSERT_EQUAL(std::string("abc.DEF_1-2"), *echoed.header("X-Request-Id"));
    CPPUNIT_ASSERT_EQUAL(std::string("abc.DEF_1-2"),
                         Json::parse(echoed.body)["data"]["request_id"].asString());
    for (const std::string& bad : {std::string("has space"), std::string(65, 'a'), std::string(""),
                                   std::string("semi;colon")}) {
      const RawResponse r = call("GET", "/v1/echo/x", "", {{"X-Request-Id", bad}});
      CPPUNIT_ASSERT(*r.header("X-Request-Id") != bad);
      CPPUNIT_ASSERT_EQUAL(std::size_t{16}, r.header("X-Request-Id")->size());
    }
    const std::string a = *call("GET", "/v1/nothing").header("X-Request-Id");
    const std::string b = *call("GET", "/v1/nothing").header("X-Request-Id");
    CPPUNIT_ASSERT(a != b);
    CPPUNIT_ASSERT_EQUAL(std::string(64, 'a'),
                         *call("GET", "/healthz", "", {{"X-Request-Id", std::string(64, 'a')}})
                              .header("X-Request-Id"));
  }

  void testDeprecationHeaders() {
    const RawResponse r = call("GET", "/v1/legacy/items");
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("2026-01-15"), *r.header("Deprecation"));
    CPPUNIT_ASSERT_EQUAL(std::string("2027-01-01"), *r.header("Sunset"));
    CPPUNIT_ASSERT_EQUAL(std::string("<https://docs.rapport.dev/migrate>; rel=\"deprecation\""),
                         *r.header("Link"));
    // Errors under the prefix carry them too; other paths do not.
    CPPUNIT_ASSERT(call("GET", "/v1/legacy/nothing").header("Deprecation") != nullptr);
    CPPUNIT_ASSERT(call("GET", "/v1/echo/x").header("Deprecation") == nullptr);
    // From the sunset date on, the same path is gone.
    now_ = *rapport::parseIsoTimestamp("2027-01-01T00:00:00Z");
    CPPUNIT_ASSERT_EQUAL(410, call("GET", "/v1/legacy/items").status);
  }

  void testSunsetPathGone() {
    const RawResponse r = call("GET", "/v1/ended/items");
    CPPUNIT_ASSERT_EQUAL(410, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"This endpoint has been sunset.\"}"), r.body);
    CPPUNIT_ASSERT_EQUAL(std::string("2025-01-01"), *r.header("Deprecation"));
    CPPUNIT_ASSERT_EQUAL(std::string("2026-02-01T00:00:00Z"), *r.header("Sunset"));
    CPPUNIT_ASSERT(r.header("X-RateLimit-Limit") != nullptr);
    // Before the sunset instant it still works.
    now_ = *rapport::parseIsoTimestamp("2026-01-31T23:59:59Z");
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/ended/items").status);
  }

  void testSunsetVersionGone() {
    CPPUNIT_ASSERT_EQUAL(410, call("GET", "/v0/old").status);
    const RawResponse unrouted = call("GET", "/v0/anything");
    CPPUNIT_ASSERT_EQUAL(410, unrouted.status);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"This API version has been sunset.\"}"),
                         unrouted.body);
  }

  void testVersionsRoute() {
    const RawResponse r = call("GET", "/v1/versions");
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    const Json data = Json::parse(r.body)["data"];
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, data.size());
    CPPUNIT_ASSERT_EQUAL(std::string("v1"), data.asArray()[0]["version"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("active"), data.asArray()[0]["status"].asString());
    CPPUNIT_ASSERT(data.asArray()[0]["sunset_at"].isNull());
  }

  void testErrorSamples() {
    const rapport::Headers auth{{"Authorization", "Bearer member-token"}};
    CPPUNIT_ASSERT_EQUAL(401, sample("404", {}).status);  // authenticated route
    for (int status : {400, 401, 403, 404, 409, 422, 429, 500}) {
      const RawResponse r = sample(std::to_string(status), auth);
      CPPUNIT_ASSERT_EQUAL(status, r.status);
      const Json body = Json::parse(r.body);
      CPPUNIT_ASSERT_EQUAL(Error::genericMessage(status), body["message"].asString());
      CPPUNIT_ASSERT_EQUAL(status == 422, body.contains("errors"));
      CPPUNIT_ASSERT_EQUAL(status == 429, r.header("Retry-After") != nullptr);
    }
    const Json errors = Json::parse(sample("422", auth).body)["errors"];
    CPPUNIT_ASSERT_EQUAL(std::string("The email must be a valid email address."),
                         errors["email"].asArray()[0].asString());
    for (const char* bad : {"418", "abc", "4000", "-400", ""}) {
      const RawResponse r = sample(bad, auth);
      CPPUNIT_ASSERT_EQUAL(422, r.status);
      CPPUNIT_ASSERT(Json::parse(r.body)["errors"].contains("status"));
    }
    CPPUNIT_ASSERT_EQUAL(std::string("The selected status is invalid."),
                         Json::parse(sample("418", auth).body)["message"].asString());
  }

  void testHealthAndReadiness() {
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"OK.\",\"data\":{\"status\":\"ok\"}}"),
                         call("GET", "/healthz").body);
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/readyz").status);
    ready_ = false;
    // The answer stands for a second (Readiness.h).
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/readyz").status);
    readyClock_ += rapport::host::kReadinessTtl;
    const RawResponse r = call("GET", "/readyz");
    CPPUNIT_ASSERT_EQUAL(503, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"message\":\"Service unavailable.\"}"), r.body);
  }

 private:
  void makePipeline(PipelineOptions options) {
    store_ = std::make_unique<MemoryRateLimitStore>();
    pipeline_ = std::make_unique<Pipeline>(*router_, auth_, *store_, *policy_, options,
                                           [this] { return now_.load(); });
  }

  RawRequest request(const std::string& method, const std::string& path,
                     const std::string& body = "", const rapport::Headers& headers = {}) {
    RawRequest raw;
    raw.method = method;
    raw.path = path;
    raw.body = body;
    raw.headers = headers;
    raw.clientAddress = "127.0.0.1";
    return raw;
  }

  RawResponse call(const std::string& method, const std::string& path, const std::string& body = "",
                   const rapport::Headers& headers = {}) {
    return pipeline_->handle(request(method, path, body, headers));
  }

  RawResponse sample(const std::string& status, const rapport::Headers& headers) {
    RawRequest raw = request("GET", "/v1/errors/sample", "", headers);
    raw.query = "status=" + status;
    return pipeline_->handle(raw);
  }

  RawResponse callWithHandler(rapport::Handler handler) {
    const std::string path = "/v1/adhoc" + std::to_string(++adhoc_);
    router_->add("GET", path, std::move(handler), publicAccess(), "adhoc");
    return call("GET", path);
  }

  std::atomic<std::int64_t> now_{0};
  bool ready_ = true;
  std::chrono::steady_clock::time_point readyClock_;
  int adhoc_ = 0;
  FakeConfig config_;
  FakeAuthenticator auth_;
  std::unique_ptr<Router> router_;
  std::unique_ptr<VersionPolicy> policy_;
  std::unique_ptr<MemoryRateLimitStore> store_;
  std::unique_ptr<Pipeline> pipeline_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(PipelineTest);
