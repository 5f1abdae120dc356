// Throttled logins (decisions §3): 5 failed logins for one e-mail and client
// address within 60 s give 429 with Retry-After, even with the right password.
// The 60 s slide with each attempt: no clock boundary resets the count.
#include <cppunit/extensions/HelperMacros.h>

#include <cctype>
#include <chrono>
#include <thread>

#include "e2e/auth/AuthSuite.h"
#include "e2e/common/Timely.h"

using namespace rapport::e2e;

class ThrottleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ThrottleTest);
  CPPUNIT_TEST(testFiveFailuresThen429EvenWithRightPassword);
  CPPUNIT_TEST(testOtherEmailIsNotAffected);
  CPPUNIT_TEST(testSuccessesAreNotCounted);
  CPPUNIT_TEST(testWindowSlidesAcrossClockBoundaries);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testFiveFailuresThen429EvenWithRightPassword() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "throttled");
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

  // auth.login.window = 4: two failures just before a multiple of 4 s since
  // the epoch (where a fixed window aligned to the clock would start afresh)
  // and three just after are five within 4 s: 429. The block lifts when the
  // oldest failure is 4 s old, as Retry-After says, not at a clock boundary.
  // An attempt that could not place its failures around the boundary, or
  // check the block in time, is made again with a new account.
  void testWindowSlidesAcrossClockBoundaries() {
    ServerProcess server(generousSettings({{"auth.login.window", "4"}}));
    HttpClient client(server.port());
    Account account;
    std::int64_t retryAfter = 0;
    retryUntilTimely("five failures around a 4 s boundary and the block before it lifts", 3,
                     [&](int) {
                       account = registerUser(client, "sliding");
                       return blockedAcrossABoundary(client, account, retryAfter);
                     });
    // ...and let in once Retry-After has passed.
    std::this_thread::sleep_for(std::chrono::seconds(retryAfter));
    E2E_ASSERT_DATA(200, login(client, account.email, account.password));
  }

 private:
  // Two failures 0.8 s before a boundary still ahead, three 0.1 s after it;
  // then the right password is refused with 429, and again until the first
  // failure is 4 s old. Sets `retryAfter`. False when this machine was too
  // slow: the second failure came back after the boundary, or the block
  // could not be checked 3.5 s after the first.
  static bool blockedAcrossABoundary(HttpClient& client, const Account& account,
                                     std::int64_t& retryAfter) {
    constexpr std::int64_t kWindowMs = 4000;
    const std::int64_t boundary = ((epochMs() + 800) / kWindowMs + 1) * kWindowMs;
    sleepUntilEpochMs(boundary - 800);
    const auto first = std::chrono::steady_clock::now();
    for (int i = 0; i < 5; ++i) {
      if (i == 2) {
        if (epochMs() >= boundary) return false;
        sleepUntilEpochMs(boundary + 100);
      }
      E2E_ASSERT_ERROR(401, login(client, account.email, "wrong " + std::to_string(i)));
    }

    const HttpResult blocked = login(client, account.email, account.password);
    E2E_ASSERT_ERROR(429, blocked);
    retryAfter = headerInt(blocked, "Retry-After");
    CPPUNIT_ASSERT_MESSAGE(describe(blocked), retryAfter >= 1 && retryAfter <= 4);
    // Still blocked until the first failure is 4 s old...
    const HttpResult still = login(client, account.email, account.password);
    if (std::chrono::steady_clock::now() - first >= std::chrono::milliseconds(3500)) return false;
    E2E_ASSERT_ERROR(429, still);
    return true;
  }

  static std::int64_t epochMs() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  }

  // Sleeps until the wall clock reads `target` ms since the epoch (no wait
  // when that has passed).
  static void sleepUntilEpochMs(std::int64_t target) {
    const std::int64_t wait = target - epochMs();
    if (wait > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ThrottleTest);
