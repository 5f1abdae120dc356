// LoginThrottle over the embedded MemoryRateLimitStore, with a hand-moved clock.
#include <cppunit/extensions/HelperMacros.h>

#include "AccountsTestSupport.h"
#include "accounts/LoginThrottle.h"
#include "ratelimit/MemoryRateLimitStore.h"

using rapport::host::MemoryRateLimitStore;
using rapport::host::accounts::LoginThrottle;
using rapport::test::accounts::expectError;
using rapport::test::accounts::ManualClock;

class LoginThrottleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(LoginThrottleTest);
  CPPUNIT_TEST(testFiveFailuresBlock);
  CPPUNIT_TEST(testWindowEndUnblocks);
  CPPUNIT_TEST(testPairsAreIndependent);
  CPPUNIT_TEST(testCheckCountsNothing);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testFiveFailuresBlock() {
    ManualClock time;
    MemoryRateLimitStore store;
    LoginThrottle throttle(store, 5, 60, time.clock());
    for (int i = 0; i < 5; ++i) {
      throttle.check("ann@example.com", "192.0.2.1");
      throttle.recordFailure("ann@example.com", "192.0.2.1");
    }
    const rapport::Error e = expectError([&] { throttle.check("ann@example.com", "192.0.2.1"); });
    CPPUNIT_ASSERT_EQUAL(429, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("Too many login attempts. Please try again later."),
                         std::string(e.what()));
    bool retryAfter = false;
    for (const auto& [name, value] : e.headers()) {
      if (name == "Retry-After") {
        retryAfter = true;
        CPPUNIT_ASSERT(std::stol(value) >= 1);
        CPPUNIT_ASSERT(std::stol(value) <= 60);
      }
    }
    CPPUNIT_ASSERT(retryAfter);
  }

  void testWindowEndUnblocks() {
    ManualClock time;
    MemoryRateLimitStore store;
    LoginThrottle throttle(store, 5, 60, time.clock());
    for (int i = 0; i < 5; ++i) throttle.recordFailure("ann@example.com", "192.0.2.1");
    expectError([&] { throttle.check("ann@example.com", "192.0.2.1"); });
    time.advanceSeconds(60);
    throttle.check("ann@example.com", "192.0.2.1");
  }

  void testPairsAreIndependent() {
    ManualClock time;
    MemoryRateLimitStore store;
    LoginThrottle throttle(store, 5, 60, time.clock());
    for (int i = 0; i < 5; ++i) throttle.recordFailure("ann@example.com", "192.0.2.1");
    throttle.check("ann@example.com", "192.0.2.2");
    throttle.check("bob@example.com", "192.0.2.1");
  }

  void testCheckCountsNothing() {
    ManualClock time;
    MemoryRateLimitStore store;
    LoginThrottle throttle(store, 5, 60, time.clock());
    for (int i = 0; i < 4; ++i) throttle.recordFailure("ann@example.com", "192.0.2.1");
    for (int i = 0; i < 20; ++i) throttle.check("ann@example.com", "192.0.2.1");
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(LoginThrottleTest);
