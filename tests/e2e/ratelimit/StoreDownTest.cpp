// The rate limit while its shared store is down (ratelimit.store = redis, a
// redis-server of the test's own, stopped mid-test; README
// "ratelimit.on_store_error", docs/deploy.md):
// - deny_auth (the default): the auth routes (register, login,
//   forgot-password) answer 503 with Retry-After: 1; every other request is
//   served uncounted. Before, register and every other route were served
//   (the store failed open);
// - deny: every request but the health probes answers 503;
// - allow: served, register included (logins still meet the login
//   throttle, which fails closed on its own);
// each failure counted in rapport_ratelimit_store_errors_total, and logged
// once per 10 s.
#include <cppunit/extensions/HelperMacros.h>

#include <regex>
#include <sstream>

#include "e2e/common/Api.h"
#include "unit/redis/PrivateRedis.h"

using namespace rapport::e2e;
using rapport::test::PrivateRedis;

namespace {

ServerProcess::Settings onRedis(const PrivateRedis& redis, const std::string& onStoreError) {
  ServerProcess::Settings settings = generousSettings(
      {{"ratelimit.store", "redis"}, {"redis.url", redis.url}, {"metrics.listen", "127.0.0.1:0"}});
  if (!onStoreError.empty()) settings.emplace("ratelimit.on_store_error", onStoreError);
  return settings;
}

// rapport_ratelimit_store_errors_total{outcome=...} on the server's metrics
// port (-1 when absent).
double storeErrors(const ServerProcess& server, const std::string& outcome) {
  static const std::regex listening(R"(msg="metrics listening" host=127\.0\.0\.1 port=(\d+))");
  std::smatch port;
  const std::string log = server.log();
  if (!std::regex_search(log, port, listening)) CPPUNIT_FAIL("no metrics port:\n" + log);
  HttpClient client(std::stoi(port[1]));
  const std::string series = "rapport_ratelimit_store_errors_total{outcome=\"" + outcome + "\"} ";
  std::istringstream in(client.get("/metrics").body);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(series, 0) == 0) return std::stod(line.substr(series.size()));
  }
  return -1;
}

void assertRefused(const HttpResult& result) {
  const Json body = E2E_ASSERT_ERROR(503, result);
  CPPUNIT_ASSERT_EQUAL(std::string("Service temporarily unavailable. Please try again shortly."),
                       body["message"].asString());
  CPPUNIT_ASSERT_EQUAL(std::string("1"), result.header("Retry-After"));
}

Account newAccount(const std::string& label) {
  Account account;
  account.name = "Store Down";
  account.email = uniqueEmail(label);
  account.password = "a long passphrase " + randomHex(8);
  account.companyName = "Store Down Ltd";
  return account;
}

}  // namespace

class StoreDownTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(StoreDownTest);
  CPPUNIT_TEST(testDenyAuthRefusesAuthRoutesServesTheRest);
  CPPUNIT_TEST(testDenyRefusesAllButHealthProbes);
  CPPUNIT_TEST(testAllowServesUncounted);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testDenyAuthRefusesAuthRoutesServesTheRest() {
    PrivateRedis redis;
    ServerProcess server(onRedis(redis, ""));
    HttpClient client(server.port());
    const Account account = registerUser(client, "storedown");
    redis.stop();

    assertRefused(client.post("/v1/auth/register", registrationBody(newAccount("refused"))));
    assertRefused(login(client, account.email, account.password));
    assertRefused(
        client.post("/v1/auth/forgot-password", Json::object({{"email", account.email}})));
    E2E_ASSERT_DATA(200, client.get("/v1/versions"));
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
    E2E_ASSERT_STATUS(200, client.get("/healthz"));

    CPPUNIT_ASSERT_EQUAL(3.0, storeErrors(server, "refused"));
    CPPUNIT_ASSERT_EQUAL(3.0, storeErrors(server, "served"));
    // Six failures, one warning (at most one per 10 s).
    const auto warnings = linesContaining(server.log(), "rate limit store failed");
    CPPUNIT_ASSERT_EQUAL_MESSAGE(server.log(), std::size_t{1}, warnings.size());
    CPPUNIT_ASSERT_MESSAGE(warnings[0],
                           warnings[0].find("on_store_error=deny_auth") != std::string::npos);
  }

  void testDenyRefusesAllButHealthProbes() {
    PrivateRedis redis;
    ServerProcess server(onRedis(redis, "deny"));
    HttpClient client(server.port());
    const Account account = registerUser(client, "storedown");
    redis.stop();

    assertRefused(client.get("/v1/versions"));
    assertRefused(client.get("/v1/auth/me", bearer(account.token)));
    E2E_ASSERT_STATUS(200, client.get("/healthz"));
    CPPUNIT_ASSERT_EQUAL(2.0, storeErrors(server, "refused"));
  }

  void testAllowServesUncounted() {
    PrivateRedis redis;
    ServerProcess server(onRedis(redis, "allow"));
    HttpClient client(server.port());
    redis.stop();

    E2E_ASSERT_DATA(201, client.post("/v1/auth/register", registrationBody(newAccount("allowed"))));
    E2E_ASSERT_DATA(200, client.get("/v1/versions"));
    CPPUNIT_ASSERT_EQUAL(2.0, storeErrors(server, "served"));
    CPPUNIT_ASSERT_EQUAL(0.0, storeErrors(server, "refused"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(StoreDownTest);
