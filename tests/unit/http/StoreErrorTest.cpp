// A rate-limit store that cannot count (redis down): the Pipeline serves or
// refuses as ratelimit.on_store_error says (ratelimit/StoreErrorPolicy.h).
// The refusal is 503 with Retry-After: 1 in the envelope; health probes are
// never refused; every failure is counted in
// rapport_ratelimit_store_errors_total by outcome.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "http/Pipeline.h"
#include "http/UtilityRoutes.h"
#include "log/Log.h"
#include "metrics/Registry.h"
#include "rapport/json.h"
#include "unit/http/Fakes.h"

using rapport::Json;
using rapport::Request;
using rapport::Response;
using rapport::host::OnStoreError;
using rapport::host::Pipeline;
using rapport::host::PipelineOptions;
using rapport::host::RateDecision;
using rapport::host::RawRequest;
using rapport::host::RawResponse;
using rapport::host::Router;
using rapport::host::VersionPolicy;
using rapport::test::publicAccess;

namespace {

// What RedisRateLimitStore does while redis is down.
class DownStore final : public rapport::host::RateLimitStore {
 public:
  RateDecision hit(const std::string&, std::int64_t, std::int64_t, std::int64_t) override {
    throw std::runtime_error("redis at redis://127.0.0.1:1: cannot connect");
  }
  RateDecision peek(const std::string&, std::int64_t, std::int64_t, std::int64_t) override {
    throw std::runtime_error("redis at redis://127.0.0.1:1: cannot connect");
  }
};

Response emptyAnswer(const Request&) {
  return Response::ok(Json::object());
}

// The counter of `outcome` in the process's metrics (0 before the first).
double storeErrors(const std::string& outcome) {
  const std::string series = "rapport_ratelimit_store_errors_total{outcome=\"" + outcome + "\"} ";
  std::istringstream in(rapport::host::metrics::registry().render());
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(series, 0) == 0) return std::stod(line.substr(series.size()));
  }
  return 0;
}

}  // namespace

class StoreErrorTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(StoreErrorTest);
  CPPUNIT_TEST(testDenyAuthRefusesOnlyAuthRoutes);
  CPPUNIT_TEST(testDenyRefusesAllButHealthProbes);
  CPPUNIT_TEST(testAllowServesEverything);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    rapport::host::log::setLevel(rapport::host::log::Level::Error);
    router_ = std::make_unique<Router>();
    policy_ = std::make_unique<VersionPolicy>(rapport::test::FakeConfig{});
    rapport::host::registerUtilityRoutes(*router_, *policy_, [] { return true; });
    router_->add("POST", "/v1/auth/login", emptyAnswer, publicAccess(), "host");
    router_->add("POST", "/v1/auth/refresh", emptyAnswer, publicAccess(), "host");
    router_->add("GET", "/v1/auth/me", emptyAnswer, {}, "host");
    router_->add("GET", "/v1/ping", emptyAnswer, publicAccess(), "test");
  }

  // The default: a guesser gets no uncounted logins; everyone else is served.
  void testDenyAuthRefusesOnlyAuthRoutes() {
    CPPUNIT_ASSERT(PipelineOptions{}.onStoreError == OnStoreError::DenyAuth);
    makePipeline(OnStoreError::DenyAuth);
    const double refusedBefore = storeErrors("refused");
    const double servedBefore = storeErrors("served");
    assertRefused(call("POST", "/v1/auth/login"));
    CPPUNIT_ASSERT_EQUAL(200, call("POST", "/v1/auth/refresh").status);
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/auth/me", "member-token").status);
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/ping").status);
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/healthz").status);
    CPPUNIT_ASSERT_EQUAL(refusedBefore + 1, storeErrors("refused"));
    CPPUNIT_ASSERT_EQUAL(servedBefore + 4, storeErrors("served"));
  }

  void testDenyRefusesAllButHealthProbes() {
    makePipeline(OnStoreError::Deny);
    assertRefused(call("POST", "/v1/auth/login"));
    assertRefused(call("GET", "/v1/auth/me", "member-token"));
    assertRefused(call("GET", "/v1/ping"));
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/healthz").status);
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/readyz").status);
  }

  void testAllowServesEverything() {
    makePipeline(OnStoreError::Allow);
    const RawResponse login = call("POST", "/v1/auth/login");
    CPPUNIT_ASSERT_EQUAL(200, login.status);
    // As in a fresh window: the headers are there, the count is not.
    CPPUNIT_ASSERT(login.header("X-RateLimit-Remaining"));
    CPPUNIT_ASSERT_EQUAL(std::string("60"), *login.header("X-RateLimit-Remaining"));
    CPPUNIT_ASSERT_EQUAL(200, call("GET", "/v1/ping").status);
  }

 private:
  void makePipeline(OnStoreError mode) {
    PipelineOptions options;
    options.onStoreError = mode;
    pipeline_ = std::make_unique<Pipeline>(*router_, auth_, store_, *policy_, options);
  }

  RawResponse call(const std::string& method, const std::string& path,
                   const std::string& token = "") {
    RawRequest raw;
    raw.method = method;
    raw.path = path;
    raw.body = method == "POST" ? "{}" : "";
    if (!token.empty()) raw.headers["Authorization"] = "Bearer " + token;
    raw.clientAddress = "127.0.0.1";
    return pipeline_->handle(raw);
  }

  static void assertRefused(const RawResponse& response) {
    CPPUNIT_ASSERT_EQUAL(503, response.status);
    CPPUNIT_ASSERT(response.header("Retry-After"));
    CPPUNIT_ASSERT_EQUAL(std::string("1"), *response.header("Retry-After"));
    CPPUNIT_ASSERT_EQUAL(std::string("Service temporarily unavailable. Please try again shortly."),
                         Json::parse(response.body)["message"].asString());
  }

  DownStore store_;
  rapport::test::FakeAuthenticator auth_;
  std::unique_ptr<Router> router_;
  std::unique_ptr<VersionPolicy> policy_;
  std::unique_ptr<Pipeline> pipeline_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(StoreErrorTest);
