// MemoryAttemptLog: a sliding window of attempt times per key, driven by a
// hand-moved clock (times are passed in, in microseconds): exact expiry at the
// window's edge whatever the minute, the newest `keep` kept, Retry-After from
// the oldest counted attempt, independence of keys, bounded memory, and
// consistent counts under concurrency; tryRecord() records only while there
// is room (exactly `limit` of racing callers get in) and release() takes one
// recorded attempt back.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "ratelimit/MemoryAttemptLog.h"

using rapport::host::AttemptAdmission;
using rapport::host::AttemptWindow;
using rapport::host::MemoryAttemptLog;

namespace {

constexpr std::int64_t kSecond = 1'000'000;
constexpr std::int64_t kWindow = 60 * kSecond;
constexpr std::int64_t kKeep = 5;

// A clock the test moves by hand; starts 58 s into a minute, so a window
// from now always straddles a minute boundary.
struct TestClock {
  std::int64_t now = 1'800'000'058 * kSecond;
  void advance(std::int64_t micros) { now += micros; }
};

}  // namespace

class MemoryAttemptLogTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(MemoryAttemptLogTest);
  CPPUNIT_TEST(testCountsAttemptsAcrossMinuteBoundaries);
  CPPUNIT_TEST(testAttemptLeavesTheWindowExactly);
  CPPUNIT_TEST(testKeepsTheNewestOnly);
  CPPUNIT_TEST(testRecentRecordsNothing);
  CPPUNIT_TEST(testOutOfOrderTimes);
  CPPUNIT_TEST(testRetryAfterSeconds);
  CPPUNIT_TEST(testKeysIndependent);
  CPPUNIT_TEST(testForgottenKeysPurged);
  CPPUNIT_TEST(testConcurrentRecords);
  CPPUNIT_TEST(testTryRecordStopsAtTheLimit);
  CPPUNIT_TEST(testTryRecordSlides);
  CPPUNIT_TEST(testTryRecordExactUnderConcurrency);
  CPPUNIT_TEST(testReleaseTakesOneBack);
  CPPUNIT_TEST(testReleaseOfUnknownIsHarmless);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCountsAttemptsAcrossMinuteBoundaries() {
    MemoryAttemptLog log;
    TestClock clock;
    for (int i = 0; i < 5; ++i) {
      const AttemptWindow w = log.record("k", clock.now, kKeep, kWindow);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{i + 1}, w.count);
      clock.advance(kSecond);  // :58, :59, :00, :01, :02
    }
    const AttemptWindow w = log.recent("k", clock.now, kKeep, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{5}, w.count);
    CPPUNIT_ASSERT_EQUAL(clock.now - 5 * kSecond, w.oldestAt);
  }

  void testAttemptLeavesTheWindowExactly() {
    MemoryAttemptLog log;
    TestClock clock;
    const std::int64_t first = clock.now;
    log.record("k", first, kKeep, kWindow);
    clock.advance(10 * kSecond);
    log.record("k", clock.now, kKeep, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2},
                         log.recent("k", first + kWindow - 1, kKeep, kWindow).count);
    const AttemptWindow later = log.recent("k", first + kWindow, kKeep, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, later.count);
    CPPUNIT_ASSERT_EQUAL(clock.now, later.oldestAt);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0},
                         log.recent("k", clock.now + kWindow, kKeep, kWindow).count);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0},
                         log.recent("k", clock.now + kWindow, kKeep, kWindow).oldestAt);
  }

  void testKeepsTheNewestOnly() {
    MemoryAttemptLog log;
    TestClock clock;
    AttemptWindow w;
    for (int i = 0; i < 9; ++i) {
      w = log.record("k", clock.now, kKeep, kWindow);
      clock.advance(kSecond);
    }
    CPPUNIT_ASSERT_EQUAL(kKeep, w.count);
    // Attempts 0..8 at one-second steps: the newest five start at 4.
    CPPUNIT_ASSERT_EQUAL(clock.now - 5 * kSecond, w.oldestAt);
  }

  void testRecentRecordsNothing() {
    MemoryAttemptLog log;
    TestClock clock;
    for (int i = 0; i < 10; ++i) {
      CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, log.recent("k", clock.now, kKeep, kWindow).count);
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, log.size());
    log.record("k", clock.now, kKeep, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, log.recent("k", clock.now, kKeep, kWindow).count);
  }

  void testOutOfOrderTimes() {
    // Threads read the clock before they reach the log: a later record may
    // carry an earlier time. The oldest is still the oldest.
    MemoryAttemptLog log;
    TestClock clock;
    log.record("k", clock.now + 2 * kSecond, kKeep, kWindow);
    const AttemptWindow w = log.record("k", clock.now, kKeep, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, w.count);
    CPPUNIT_ASSERT_EQUAL(clock.now, w.oldestAt);
  }

  void testRetryAfterSeconds() {
    TestClock clock;
    const AttemptWindow w{5, clock.now};
    CPPUNIT_ASSERT_EQUAL(std::int64_t{60}, w.retryAfterSeconds(clock.now, kWindow));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{60}, w.retryAfterSeconds(clock.now + 1, kWindow));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{59}, w.retryAfterSeconds(clock.now + kSecond, kWindow));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, w.retryAfterSeconds(clock.now + kWindow - 1, kWindow));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, w.retryAfterSeconds(clock.now + kWindow, kWindow));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, w.retryAfterSeconds(clock.now + 2 * kWindow, kWindow));
  }

  void testKeysIndependent() {
    MemoryAttemptLog log;
    TestClock clock;
    for (int i = 0; i < 5; ++i) log.record("a", clock.now, kKeep, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, log.recent("b", clock.now, kKeep, kWindow).count);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, log.record("b", clock.now, kKeep, kWindow).count);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{5}, log.recent("a", clock.now, kKeep, kWindow).count);
  }

  void testForgottenKeysPurged() {
    MemoryAttemptLog log(4);
    TestClock clock;
    for (int i = 0; i < 64; ++i) log.record("old-" + std::to_string(i), clock.now, kKeep, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::size_t{64}, log.size());
    clock.advance(kWindow);
    for (int i = 0; i < 64; ++i) log.record("new-" + std::to_string(i), clock.now, kKeep, kWindow);
    // Every old key has left its window; what a shard still holds is bounded
    // by its purge threshold, never by the history.
    CPPUNIT_ASSERT_MESSAGE(std::to_string(log.size()), log.size() < 128);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, log.recent("old-1", clock.now, kKeep, kWindow).count);
  }

  void testConcurrentRecords() {
    MemoryAttemptLog log;
    TestClock clock;
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&log, &clock, t] {
        for (int i = 0; i < 500; ++i) {
          log.record("shared", clock.now + i, kKeep, kWindow);
          log.record("own-" + std::to_string(t), clock.now + i, 1000, kWindow);
        }
      });
    }
    for (auto& thread : threads) thread.join();
    CPPUNIT_ASSERT_EQUAL(kKeep, log.recent("shared", clock.now + 500, kKeep, kWindow).count);
    for (int t = 0; t < 8; ++t) {
      const AttemptWindow w =
          log.recent("own-" + std::to_string(t), clock.now + 500, 1000, kWindow);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{500}, w.count);
      CPPUNIT_ASSERT_EQUAL(clock.now, w.oldestAt);
    }
  }

  void testTryRecordStopsAtTheLimit() {
    MemoryAttemptLog log;
    TestClock clock;
    for (int i = 0; i < 5; ++i) {
      const AttemptAdmission a = log.tryRecord("k", clock.now, kKeep, kWindow);
      CPPUNIT_ASSERT(a.admitted);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{i + 1}, a.window.count);
      clock.advance(kSecond);
    }
    const AttemptAdmission refused = log.tryRecord("k", clock.now, kKeep, kWindow);
    CPPUNIT_ASSERT(!refused.admitted);
    CPPUNIT_ASSERT_EQUAL(kKeep, refused.window.count);
    CPPUNIT_ASSERT_EQUAL(clock.now - 5 * kSecond, refused.window.oldestAt);
    // The refusal recorded nothing: the oldest still leaves 60 s after it came.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{55}, refused.window.retryAfterSeconds(clock.now, kWindow));
    CPPUNIT_ASSERT_EQUAL(kKeep, log.recent("k", clock.now, kKeep, kWindow).count);
  }

  void testTryRecordSlides() {
    MemoryAttemptLog log;
    TestClock clock;
    const std::int64_t first = clock.now;
    for (int i = 0; i < 5; ++i) log.tryRecord("k", first + i * 10 * kSecond, kKeep, kWindow);
    // Attempts at 0, 10, .., 40: full until the one at 0 is 60 s old.
    CPPUNIT_ASSERT(!log.tryRecord("k", first + kWindow - 1, kKeep, kWindow).admitted);
    const AttemptAdmission in = log.tryRecord("k", first + kWindow, kKeep, kWindow);
    CPPUNIT_ASSERT(in.admitted);
    CPPUNIT_ASSERT_EQUAL(first + 10 * kSecond, in.window.oldestAt);
    CPPUNIT_ASSERT(!log.tryRecord("k", first + kWindow + 1, kKeep, kWindow).admitted);
  }

  // The reservation the login throttle relies on: of 8 threads racing for 5
  // places, exactly 5 get one.
  void testTryRecordExactUnderConcurrency() {
    for (int round = 0; round < 50; ++round) {
      MemoryAttemptLog log;
      TestClock clock;
      std::atomic<int> admitted{0};
      std::vector<std::thread> threads;
      for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&] {
          if (log.tryRecord("race", clock.now, kKeep, kWindow).admitted) ++admitted;
        });
      }
      for (auto& thread : threads) thread.join();
      CPPUNIT_ASSERT_EQUAL(5, admitted.load());
      CPPUNIT_ASSERT_EQUAL(kKeep, log.recent("race", clock.now, kKeep, kWindow).count);
    }
  }

  void testReleaseTakesOneBack() {
    MemoryAttemptLog log;
    TestClock clock;
    log.tryRecord("k", clock.now, kKeep, kWindow);
    log.tryRecord("k", clock.now, kKeep, kWindow);  // two at the same instant
    log.tryRecord("k", clock.now + kSecond, kKeep, kWindow);
    log.release("k", clock.now);
    AttemptWindow w = log.recent("k", clock.now + kSecond, kKeep, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, w.count);
    CPPUNIT_ASSERT_EQUAL(clock.now, w.oldestAt);
    log.release("k", clock.now);
    w = log.recent("k", clock.now + kSecond, kKeep, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, w.count);
    CPPUNIT_ASSERT_EQUAL(clock.now + kSecond, w.oldestAt);
    log.release("k", clock.now + kSecond);
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, log.size());  // an empty key is dropped
  }

  void testReleaseOfUnknownIsHarmless() {
    MemoryAttemptLog log;
    TestClock clock;
    log.release("nobody", clock.now);
    log.record("k", clock.now, kKeep, kWindow);
    log.release("k", clock.now + 1);  // no attempt at that time
    log.release("other", clock.now);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, log.recent("k", clock.now, kKeep, kWindow).count);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(MemoryAttemptLogTest);
