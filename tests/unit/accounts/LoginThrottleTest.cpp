// LoginThrottle over the embedded MemoryAttemptLog, with a hand-moved clock:
// 5 failures within any 60 s (a sliding window, minute boundaries or not)
// block, and Retry-After is the wait until the oldest one leaves the window.
#include <cppunit/extensions/HelperMacros.h>

#include "AccountsTestSupport.h"
#include "accounts/LoginThrottle.h"
#include "ratelimit/MemoryAttemptLog.h"

using rapport::host::MemoryAttemptLog;
using rapport::host::accounts::kMicrosPerSecond;
using rapport::host::accounts::LoginThrottle;
using rapport::test::accounts::expectError;
using rapport::test::accounts::ManualClock;

namespace {

constexpr const char* kAnn = "ann@example.com";
constexpr const char* kAddress = "192.0.2.1";

// The Retry-After of a 429 from check(); fails the test when none is thrown.
long retryAfterOf(LoginThrottle& throttle) {
  const rapport::Error e = expectError([&] { throttle.check(kAnn, kAddress); });
  CPPUNIT_ASSERT_EQUAL(429, e.status());
  for (const auto& [name, value] : e.headers()) {
    if (name == "Retry-After") return std::stol(value);
  }
  CPPUNIT_FAIL("429 without Retry-After");
  return 0;
}

}  // namespace

class LoginThrottleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(LoginThrottleTest);
  CPPUNIT_TEST(testFiveFailuresBlock);
  CPPUNIT_TEST(testWindowEndUnblocks);
  CPPUNIT_TEST(testFailuresStraddlingAMinuteBoundaryCount);
  CPPUNIT_TEST(testWindowSlidesOneFailureAtATime);
  CPPUNIT_TEST(testRetryAfterRoundsUp);
  CPPUNIT_TEST(testPairsAreIndependent);
  CPPUNIT_TEST(testCheckCountsNothing);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testFiveFailuresBlock() {
    LoginThrottle throttle(log_, 5, 60, time_.clock());
    for (int i = 0; i < 5; ++i) {
      throttle.check(kAnn, kAddress);
      throttle.recordFailure(kAnn, kAddress);
    }
    const rapport::Error e = expectError([&] { throttle.check(kAnn, kAddress); });
    CPPUNIT_ASSERT_EQUAL(429, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("Too many login attempts. Please try again later."),
                         std::string(e.what()));
    // All five at this instant: the first leaves the window in exactly 60 s.
    CPPUNIT_ASSERT_EQUAL(60L, retryAfterOf(throttle));
  }

  void testWindowEndUnblocks() {
    LoginThrottle throttle(log_, 5, 60, time_.clock());
    for (int i = 0; i < 5; ++i) throttle.recordFailure(kAnn, kAddress);
    time_.advanceSeconds(59);
    CPPUNIT_ASSERT_EQUAL(1L, retryAfterOf(throttle));
    time_.advanceSeconds(1);
    throttle.check(kAnn, kAddress);
  }

  // The bug of a fixed window aligned to the minute: failures at :58 and
  // :01 fell into different windows and never added up to five.
  void testFailuresStraddlingAMinuteBoundaryCount() {
    LoginThrottle throttle(log_, 5, 60, time_.clock());  // the clock starts at :01
    time_.advanceSeconds(57);                            // :58
    throttle.recordFailure(kAnn, kAddress);
    throttle.recordFailure(kAnn, kAddress);
    time_.advanceSeconds(3);  // :01 of the next minute
    for (int i = 0; i < 3; ++i) {
      throttle.check(kAnn, kAddress);
      throttle.recordFailure(kAnn, kAddress);
    }
    // The oldest failure (:58) leaves the window at :58 of this minute.
    CPPUNIT_ASSERT_EQUAL(57L, retryAfterOf(throttle));
  }

  void testWindowSlidesOneFailureAtATime() {
    LoginThrottle throttle(log_, 5, 60, time_.clock());
    for (int i = 0; i < 5; ++i) {
      if (i > 0) time_.advanceSeconds(10);
      throttle.recordFailure(kAnn, kAddress);
    }
    // Failures at 0, 10, 20, 30, 40; now 40: the one at 0 leaves at 60.
    CPPUNIT_ASSERT_EQUAL(20L, retryAfterOf(throttle));
    time_.advanceSeconds(20);
    throttle.check(kAnn, kAddress);
    // Four remain (10..40): one more failure blocks again until 10 + 60.
    throttle.recordFailure(kAnn, kAddress);
    CPPUNIT_ASSERT_EQUAL(10L, retryAfterOf(throttle));
  }

  void testRetryAfterRoundsUp() {
    LoginThrottle throttle(log_, 5, 60, time_.clock());
    for (int i = 0; i < 5; ++i) throttle.recordFailure(kAnn, kAddress);
    time_.advanceMicros(kMicrosPerSecond / 2);
    CPPUNIT_ASSERT_EQUAL(60L, retryAfterOf(throttle));  // 59.5 s left
    time_.advanceMicros(59 * kMicrosPerSecond - 1);
    CPPUNIT_ASSERT_EQUAL(1L, retryAfterOf(throttle));  // half a second and a bit
    time_.advanceMicros(kMicrosPerSecond / 2 + 1);
    throttle.check(kAnn, kAddress);
  }

  void testPairsAreIndependent() {
    LoginThrottle throttle(log_, 5, 60, time_.clock());
    for (int i = 0; i < 5; ++i) throttle.recordFailure(kAnn, kAddress);
    throttle.check(kAnn, "192.0.2.2");
    throttle.check("bob@example.com", kAddress);
  }

  void testCheckCountsNothing() {
    LoginThrottle throttle(log_, 5, 60, time_.clock());
    for (int i = 0; i < 4; ++i) throttle.recordFailure(kAnn, kAddress);
    for (int i = 0; i < 20; ++i) throttle.check(kAnn, kAddress);
  }

 private:
  ManualClock time_;
  MemoryAttemptLog log_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(LoginThrottleTest);
