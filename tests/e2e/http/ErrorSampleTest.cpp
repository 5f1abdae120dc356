// GET /v1/errors/sample (API, Diagnostics) and the 500 that hides its cause
// (decisions §1).
#include <cppunit/extensions/HelperMacros.h>

#include <map>

#include "e2e/http/HttpSuite.h"

using namespace rapport::e2e;

class ErrorSampleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ErrorSampleTest);
  CPPUNIT_TEST(testEverySupportedStatus);
  CPPUNIT_TEST(testUnsupportedStatusIs422);
  CPPUNIT_TEST(testSampleNeedsToken);
  CPPUNIT_TEST(testInternalErrorHidesDetails);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEverySupportedStatus() {
    HttpClient client(httpServer().port());
    const Account user = registerUser(client, "sample");
    const std::map<int, std::string> reasons = {
        {400, "Bad Request"},       {401, "Unauthorized"},
        {403, "Forbidden"},         {404, "Not Found"},
        {409, "Conflict"},          {422, "Unprocessable Entity"},
        {429, "Too Many Requests"}, {500, "Internal Server Error"}};
    for (const auto& [status, reason] : reasons) {
      const HttpResult result =
          client.get("/v1/errors/sample?status=" + std::to_string(status), bearer(user.token));
      const Json body = E2E_ASSERT_ERROR(status, result);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(result), reason, result.reason);
      E2E_ASSERT_COMMON_HEADERS(result);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(result), status == 422, body.contains("errors"));
    }
  }

  void testUnsupportedStatusIs422() {
    HttpClient client(httpServer().port());
    const Account user = registerUser(client, "sample422");
    for (const std::string query : {"?status=418", "?status=200", "?status=410", "?status=abc",
                                    "?status=", "", "?status=4000"}) {
      const HttpResult result = client.get("/v1/errors/sample" + query, bearer(user.token));
      const Json body = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(query + ": " + describe(result), body["errors"].contains("status"));
    }
  }

  void testSampleNeedsToken() {
    HttpClient client(httpServer().port());
    E2E_ASSERT_ERROR(401, client.get("/v1/errors/sample?status=404"));
    E2E_ASSERT_ERROR(401, client.get("/v1/errors/sample?status=404", bearer("bogus")));
  }

  // A module's exception that is not a rapport::Error: generic 500, details
  // only in the log, next to the request id.
  void testInternalErrorHidesDetails() {
    HttpClient client(httpServer().port());
    const Account user = registerUser(client, "boom");
    const std::string id = "e2e-boom-" + randomHex(8);
    const HttpResult result =
        client.get("/v1/probe/boom", bearer(user.token, {{"X-Request-Id", id}}));
    const Json body = E2E_ASSERT_ERROR(500, result);
    CPPUNIT_ASSERT_EQUAL(std::string("Internal Server Error"), result.reason);
    CPPUNIT_ASSERT_MESSAGE(describe(result), result.body.find("secret") == std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(describe(result),
                           result.body.find("runtime_error") == std::string::npos);
    E2E_ASSERT_COMMON_HEADERS(result);
    const bool logged = waitUntil(
        [&] {
          for (const auto& line : linesContaining(httpServer().log(), "req=" + id)) {
            if (line.find("secret detail") != std::string::npos) return true;
          }
          return false;
        },
        std::chrono::seconds(5));
    CPPUNIT_ASSERT_MESSAGE("the cause is not logged with the request id", logged);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ErrorSampleTest);
