// LoginThrottle over the embedded MemoryAttemptLog, with a hand-moved clock.
// Rule 1: 5 failures per (e-mail, client key) within any 60 s (a sliding
// window, minute boundaries or not) block, Retry-After is the wait until the
// oldest leaves the window, IPv6 clients count per /64. Rule 2: past the
// per-account count the account admits one attempt per interval from
// anywhere, except from clients that logged in before. Rule 3: an attempt is
// reserved before the password is checked (open attempts see each other)
// and taken back on success.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>

#include "AccountsTestSupport.h"
#include "accounts/LoginThrottle.h"
#include "ratelimit/MemoryAttemptLog.h"

using rapport::host::MemoryAttemptLog;
using rapport::host::accounts::kMicrosPerSecond;
using rapport::host::accounts::LoginLimits;
using rapport::host::accounts::LoginThrottle;
using rapport::test::accounts::expectError;
using rapport::test::accounts::ManualClock;

namespace {

constexpr const char* kAnn = "ann@example.com";
constexpr const char* kAddress = "192.0.2.1";

// Rule 1 as decisions §3 has it; rule 2 small enough to reach quickly.
constexpr LoginLimits kLimits{.maxAttempts = 5,
                              .window = 60,
                              .accountMaxAttempts = 3,
                              .accountWindow = 600,
                              .accountInterval = 30};
// Rule 2 out of the way, for the tests of rule 1.
constexpr LoginLimits kPairOnly{.maxAttempts = 5,
                                .window = 60,
                                .accountMaxAttempts = 1000,
                                .accountWindow = 600,
                                .accountInterval = 30};

// One wrong password: the attempt ends without succeeded().
void fail(LoginThrottle& throttle, const std::string& email = kAnn,
          const std::string& address = kAddress) {
  LoginThrottle::Attempt attempt = throttle.begin(email, address);
}

// One right password.
void succeed(LoginThrottle& throttle, const std::string& email = kAnn,
             const std::string& address = kAddress) {
  LoginThrottle::Attempt attempt = throttle.begin(email, address);
  attempt.succeeded();
}

// The Retry-After of the 429 begin() throws; fails the test when it admits.
long retryAfterOf(LoginThrottle& throttle, const std::string& email = kAnn,
                  const std::string& address = kAddress) {
  const rapport::Error e =
      expectError([&] { LoginThrottle::Attempt a = throttle.begin(email, address); });
  CPPUNIT_ASSERT_EQUAL(429, e.status());
  CPPUNIT_ASSERT_EQUAL(std::string("Too many login attempts. Please try again later."),
                       std::string(e.what()));
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
  CPPUNIT_TEST(testRefusedAttemptsAreNotCounted);
  CPPUNIT_TEST(testIpv6CountedPerSlash64);
  CPPUNIT_TEST(testMappedIpv4IsTheIpv4Client);
  CPPUNIT_TEST(testOpenAttemptsSeeEachOther);
  CPPUNIT_TEST(testSuccessTakesTheReservationBack);
  CPPUNIT_TEST(testAttemptWithoutOutcomeCounts);
  CPPUNIT_TEST(testAccountSlowedAcrossAddresses);
  CPPUNIT_TEST(testAccountSlowingEndsWithItsWindow);
  CPPUNIT_TEST(testAccountWindowSlides);
  CPPUNIT_TEST(testSlowedRefusalIsNotCountedForThePair);
  CPPUNIT_TEST(testKnownClientIsNotSlowed);
  CPPUNIT_TEST(testNewClientWaitsAtMostTheInterval);
  CPPUNIT_TEST(testOwnerSuccessGivesNoFreeGuess);
  CPPUNIT_TEST(testPairRuleStillAppliesToKnownClients);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override { log_ = std::make_unique<MemoryAttemptLog>(); }

  // ------------------------------------------------------------- rule 1

  void testFiveFailuresBlock() {
    LoginThrottle throttle(*log_, kPairOnly, time_.clock());
    for (int i = 0; i < 5; ++i) fail(throttle);
    // All five at this instant: the first leaves the window in exactly 60 s.
    CPPUNIT_ASSERT_EQUAL(60L, retryAfterOf(throttle));
  }

  void testWindowEndUnblocks() {
    LoginThrottle throttle(*log_, kPairOnly, time_.clock());
    for (int i = 0; i < 5; ++i) fail(throttle);
    time_.advanceSeconds(59);
    CPPUNIT_ASSERT_EQUAL(1L, retryAfterOf(throttle));
    time_.advanceSeconds(1);
    succeed(throttle);
  }

  // The bug of a fixed window aligned to the minute: failures at :58 and
  // :01 fell into different windows and never added up to five.
  void testFailuresStraddlingAMinuteBoundaryCount() {
    LoginThrottle throttle(*log_, kPairOnly, time_.clock());  // the clock starts at :01
    time_.advanceSeconds(57);                                 // :58
    fail(throttle);
    fail(throttle);
    time_.advanceSeconds(3);  // :01 of the next minute
    for (int i = 0; i < 3; ++i) fail(throttle);
    // The oldest failure (:58) leaves the window at :58 of this minute.
    CPPUNIT_ASSERT_EQUAL(57L, retryAfterOf(throttle));
  }

  void testWindowSlidesOneFailureAtATime() {
    LoginThrottle throttle(*log_, kPairOnly, time_.clock());
    for (int i = 0; i < 5; ++i) {
      if (i > 0) time_.advanceSeconds(10);
      fail(throttle);
    }
    // Failures at 0, 10, 20, 30, 40; now 40: the one at 0 leaves at 60.
    CPPUNIT_ASSERT_EQUAL(20L, retryAfterOf(throttle));
    time_.advanceSeconds(20);
    // Four remain (10..40): one more failure blocks again until 10 + 60.
    fail(throttle);
    CPPUNIT_ASSERT_EQUAL(10L, retryAfterOf(throttle));
  }

  void testRetryAfterRoundsUp() {
    LoginThrottle throttle(*log_, kPairOnly, time_.clock());
    for (int i = 0; i < 5; ++i) fail(throttle);
    time_.advanceMicros(kMicrosPerSecond / 2);
    CPPUNIT_ASSERT_EQUAL(60L, retryAfterOf(throttle));  // 59.5 s left
    time_.advanceMicros(59 * kMicrosPerSecond - 1);
    CPPUNIT_ASSERT_EQUAL(1L, retryAfterOf(throttle));  // half a second and a bit
    time_.advanceMicros(kMicrosPerSecond / 2 + 1);
    succeed(throttle);
  }

  void testPairsAreIndependent() {
    LoginThrottle throttle(*log_, kPairOnly, time_.clock());
    for (int i = 0; i < 5; ++i) fail(throttle);
    retryAfterOf(throttle);
    succeed(throttle, kAnn, "192.0.2.2");
    succeed(throttle, "bob@example.com", kAddress);
  }

  // A refused attempt counts nothing: 20 of them, and the block still lifts
  // when the fifth failure is 60 s old.
  void testRefusedAttemptsAreNotCounted() {
    LoginThrottle throttle(*log_, kPairOnly, time_.clock());
    for (int i = 0; i < 5; ++i) fail(throttle);
    for (int i = 0; i < 20; ++i) {
      time_.advanceSeconds(1);
      retryAfterOf(throttle);
    }
    time_.advanceSeconds(40);
    succeed(throttle);
  }

  // Every address of one /64 is one client; the next /64 is another.
  void testIpv6CountedPerSlash64() {
    LoginThrottle throttle(*log_, kPairOnly, time_.clock());
    for (int i = 1; i <= 5; ++i) fail(throttle, kAnn, "2001:db8:0:1::" + std::to_string(i));
    CPPUNIT_ASSERT_EQUAL(60L, retryAfterOf(throttle, kAnn, "2001:db8:0:1:ffff:1:2:3"));
    CPPUNIT_ASSERT_EQUAL(60L, retryAfterOf(throttle, kAnn, "2001:DB8:0:1::abcd"));
    succeed(throttle, kAnn, "2001:db8:0:2::1");
  }

  void testMappedIpv4IsTheIpv4Client() {
    LoginThrottle throttle(*log_, kPairOnly, time_.clock());
    for (int i = 0; i < 3; ++i) fail(throttle, kAnn, "::ffff:192.0.2.1");
    for (int i = 0; i < 2; ++i) fail(throttle, kAnn, "192.0.2.1");
    retryAfterOf(throttle, kAnn, "192.0.2.1");
    retryAfterOf(throttle, kAnn, "::ffff:192.0.2.1");
  }

  // ------------------------------------------------------------- rule 3

  // Attempts still being checked count: with five open, the sixth is
  // refused before any of them has finished.
  void testOpenAttemptsSeeEachOther() {
    LoginThrottle throttle(*log_, kPairOnly, time_.clock());
    LoginThrottle::Attempt a1 = throttle.begin(kAnn, kAddress);
    LoginThrottle::Attempt a2 = throttle.begin(kAnn, kAddress);
    LoginThrottle::Attempt a3 = throttle.begin(kAnn, kAddress);
    LoginThrottle::Attempt a4 = throttle.begin(kAnn, kAddress);
    LoginThrottle::Attempt a5 = throttle.begin(kAnn, kAddress);
    CPPUNIT_ASSERT_EQUAL(60L, retryAfterOf(throttle));
    // Two of them had the right password: two places again.
    a2.succeeded();
    a4.succeeded();
    a4.succeeded();  // a second call changes nothing
    LoginThrottle::Attempt a6 = throttle.begin(kAnn, kAddress);
    LoginThrottle::Attempt a7 = throttle.begin(kAnn, kAddress);
    retryAfterOf(throttle);
  }

  void testSuccessTakesTheReservationBack() {
    LoginThrottle throttle(*log_, kPairOnly, time_.clock());
    for (int i = 0; i < 4; ++i) fail(throttle);
    for (int i = 0; i < 10; ++i) succeed(throttle);
    fail(throttle);          // the fifth failure is still admitted...
    retryAfterOf(throttle);  // ...and the sixth attempt is not
  }

  // An attempt that ends without succeeded(), whatever the reason (a wrong
  // password, an exception), is a failure.
  void testAttemptWithoutOutcomeCounts() {
    LoginThrottle throttle(*log_, kPairOnly, time_.clock());
    for (int i = 0; i < 5; ++i) {
      try {
        LoginThrottle::Attempt attempt = throttle.begin(kAnn, kAddress);
        throw std::runtime_error("database down");
      } catch (const std::runtime_error&) {
      }
    }
    retryAfterOf(throttle);
  }

  // ------------------------------------------------------------- rule 2

  // Three failures from three addresses slow the account: one attempt per
  // 30 s from any further address.
  void testAccountSlowedAcrossAddresses() {
    LoginThrottle throttle(*log_, kLimits, time_.clock());
    for (int i = 1; i <= 3; ++i) fail(throttle, kAnn, "198.51.100." + std::to_string(i));
    fail(throttle, kAnn, "198.51.100.4");  // the slot of this interval
    CPPUNIT_ASSERT_EQUAL(30L, retryAfterOf(throttle, kAnn, "198.51.100.5"));
    time_.advanceMicros(10 * kMicrosPerSecond + kMicrosPerSecond / 2);
    CPPUNIT_ASSERT_EQUAL(20L, retryAfterOf(throttle, kAnn, "198.51.100.6"));
    time_.advanceMicros(19 * kMicrosPerSecond + kMicrosPerSecond / 2);
    fail(throttle, kAnn, "198.51.100.7");  // 30 s after the last slot
    CPPUNIT_ASSERT_EQUAL(30L, retryAfterOf(throttle, kAnn, "198.51.100.8"));
    // Other accounts are not slowed.
    succeed(throttle, "bob@example.com", "198.51.100.8");
    succeed(throttle, "bob@example.com", "198.51.100.9");
  }

  // Once the failures have left the account window, attempts pass freely.
  void testAccountSlowingEndsWithItsWindow() {
    LoginThrottle throttle(*log_, kLimits, time_.clock());
    for (int i = 1; i <= 3; ++i) fail(throttle, kAnn, "198.51.100." + std::to_string(i));
    fail(throttle, kAnn, "198.51.100.4");
    retryAfterOf(throttle, kAnn, "198.51.100.5");
    time_.advanceSeconds(600);  // the last failure (the slot's) is 600 s old
    fail(throttle, kAnn, "198.51.100.5");
    fail(throttle, kAnn, "198.51.100.6");
    fail(throttle, kAnn, "198.51.100.7");
    // Three more: slowed again, one slot per interval.
    fail(throttle, kAnn, "198.51.100.8");
    CPPUNIT_ASSERT_EQUAL(30L, retryAfterOf(throttle, kAnn, "198.51.100.9"));
  }

  // The account window slides too: it frees up failure by failure as each
  // becomes 600 s old, not all at once.
  void testAccountWindowSlides() {
    LoginThrottle throttle(*log_, kLimits, time_.clock());
    fail(throttle, kAnn, "198.51.100.1");  // t = 0
    time_.advanceSeconds(100);
    fail(throttle, kAnn, "198.51.100.2");  // t = 100
    time_.advanceSeconds(100);
    fail(throttle, kAnn, "198.51.100.3");  // t = 200
    time_.advanceSeconds(399);             // t = 599: all three inside
    fail(throttle, kAnn, "198.51.100.4");  // takes the slot, and counts
    CPPUNIT_ASSERT_EQUAL(30L, retryAfterOf(throttle, kAnn, "198.51.100.5"));
    time_.advanceSeconds(201);             // t = 800: 0, 100 and 200 left; 599 still counts
    fail(throttle, kAnn, "198.51.100.6");  // free
    fail(throttle, kAnn, "198.51.100.7");  // free: 599, 800, 800 fill the count
    fail(throttle, kAnn, "198.51.100.8");  // the slot
    CPPUNIT_ASSERT_EQUAL(30L, retryAfterOf(throttle, kAnn, "198.51.100.9"));
  }

  // A refusal of the slowed account does not count against the pair: the
  // client is let in as soon as the interval has passed.
  void testSlowedRefusalIsNotCountedForThePair() {
    LoginThrottle throttle(*log_, kLimits, time_.clock());
    for (int i = 1; i <= 3; ++i) fail(throttle, kAnn, "198.51.100." + std::to_string(i));
    fail(throttle, kAnn, "198.51.100.4");
    for (int i = 0; i < 10; ++i) retryAfterOf(throttle, kAnn, "203.0.113.9");
    time_.advanceSeconds(30);
    succeed(throttle, kAnn, "203.0.113.9");
  }

  // The owner's usual address (a login succeeded from it) is not slowed by
  // an attack from elsewhere.
  void testKnownClientIsNotSlowed() {
    LoginThrottle throttle(*log_, kLimits, time_.clock());
    succeed(throttle, kAnn, kAddress);
    time_.advanceSeconds(3600);
    for (int i = 1; i <= 3; ++i) fail(throttle, kAnn, "198.51.100." + std::to_string(i));
    fail(throttle, kAnn, "198.51.100.4");
    retryAfterOf(throttle, kAnn, "198.51.100.5");
    succeed(throttle, kAnn, kAddress);
    // Its neighbour is another client, still slowed.
    retryAfterOf(throttle, kAnn, "192.0.2.2");
  }

  // A right password from an unknown address waits at most the interval.
  void testNewClientWaitsAtMostTheInterval() {
    LoginThrottle throttle(*log_, kLimits, time_.clock());
    for (int i = 1; i <= 3; ++i) fail(throttle, kAnn, "198.51.100." + std::to_string(i));
    fail(throttle, kAnn, "198.51.100.4");
    time_.advanceSeconds(12);
    const long wait = retryAfterOf(throttle, kAnn, "192.0.2.77");
    CPPUNIT_ASSERT_EQUAL(18L, wait);
    time_.advanceSeconds(wait);
    succeed(throttle, kAnn, "192.0.2.77");
    // Now a known client: its next login passes at once.
    succeed(throttle, kAnn, "192.0.2.77");
  }

  // While the account is slowed, the owner's success does not free a place
  // that a guesser could use without waiting for the interval.
  void testOwnerSuccessGivesNoFreeGuess() {
    LoginThrottle throttle(*log_, kLimits, time_.clock());
    succeed(throttle, kAnn, kAddress);
    for (int i = 1; i <= 3; ++i) fail(throttle, kAnn, "198.51.100." + std::to_string(i));
    fail(throttle, kAnn, "198.51.100.4");
    succeed(throttle, kAnn, kAddress);
    succeed(throttle, kAnn, kAddress);
    retryAfterOf(throttle, kAnn, "198.51.100.5");
  }

  void testPairRuleStillAppliesToKnownClients() {
    LoginThrottle throttle(*log_, kLimits, time_.clock());
    succeed(throttle, kAnn, kAddress);
    for (int i = 0; i < 5; ++i) fail(throttle, kAnn, kAddress);
    CPPUNIT_ASSERT_EQUAL(60L, retryAfterOf(throttle, kAnn, kAddress));
  }

 private:
  ManualClock time_;
  std::unique_ptr<MemoryAttemptLog> log_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(LoginThrottleTest);
