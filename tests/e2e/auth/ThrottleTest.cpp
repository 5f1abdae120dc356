// Throttled logins (decisions §3): 5 failed logins for one e-mail and client
// address within 60 s give 429 with Retry-After, even with the right password.
#include <cppunit/extensions/HelperMacros.h>

#include <cctype>

#include "e2e/auth/AuthSuite.h"

using namespace rapport::e2e;

class ThrottleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ThrottleTest);
  CPPUNIT_TEST(testFiveFailuresThen429EvenWithRightPassword);
  CPPUNIT_TEST(testOtherEmailIsNotAffected);
  CPPUNIT_TEST(testSuccessesAreNotCounted);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testFiveFailuresThen429EvenWithRightPassword() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "throttled");
    avoidMinuteEdge();
    for (int i = 0; i < 5; ++i) {
      E2E_ASSERT_ERROR(401, login(client, account.email, "wrong password " + std::to_string(i)));
    }
    const HttpResult blocked = login(client, account.email, account.password);
    E2E_ASSERT_ERROR(429, blocked);
    CPPUNIT_ASSERT_EQUAL(std::string("Too Many Requests"), blocked.reason);
    const std::int64_t retryAfter = headerInt(blocked, "Retry-After");
    CPPUNIT_ASSERT_MESSAGE(describe(blocked), retryAfter >= 1 && retryAfter <= 60);
    E2E_ASSERT_COMMON_HEADERS(blocked);
    // The same e-mail in another case is the same account.
    std::string shouted = account.email;
    for (char& c : shouted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    E2E_ASSERT_ERROR(429, login(client, shouted, account.password));
    // Tokens already issued keep working: the throttle guards login only.
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
  }

  void testOtherEmailIsNotAffected() {
    HttpClient client(authServer().port());
    const Account victim = registerUser(client, "victim");
    const Account bystander = registerUser(client, "bystander");
    avoidMinuteEdge();
    for (int i = 0; i < 6; ++i) login(client, victim.email, "guess " + std::to_string(i));
    E2E_ASSERT_ERROR(429, login(client, victim.email, victim.password));
    const Json data = E2E_ASSERT_DATA(200, login(client, bystander.email, bystander.password));
    CPPUNIT_ASSERT_EQUAL(bystander.userId, data["user"]["id"].asString());
  }

  // Four failures, then the right password: still a login.
  void testSuccessesAreNotCounted() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "fourfails");
    for (int i = 0; i < 4; ++i) E2E_ASSERT_ERROR(401, login(client, account.email, "nope nope"));
    E2E_ASSERT_DATA(200, login(client, account.email, account.password));
    E2E_ASSERT_DATA(200, login(client, account.email, account.password));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ThrottleTest);
