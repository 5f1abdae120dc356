// RedisAttemptLog against a real redis-server (fixture "redis"): the sliding
// windows of MemoryAttemptLog (exact expiry at the edge, the newest `keep`,
// recent() records nothing), reservations (tryRecord stops at the limit;
// of threads racing for the last place exactly one gets it; release takes
// back exactly one attempt, also of two in one microsecond), one log shared
// by two pools, the set's lifetime in redis, and failing closed (503 with
// Retry-After) when redis is down.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "rapport/error.h"
#include "ratelimit/RedisAttemptLog.h"
#include "unit/redis/TestRedis.h"

using rapport::host::AttemptAdmission;
using rapport::host::AttemptWindow;
using rapport::host::RedisAttemptLog;
using rapport::host::RedisPool;

namespace {

constexpr std::int64_t kSecond = 1'000'000;
constexpr std::int64_t kWindow = 60 * kSecond;
constexpr std::int64_t kStart = 1'800'000'058 * kSecond;

std::string freshKey(const std::string& label) {
  static std::mt19937_64 random{std::random_device{}()};
  return "test:" + label + ":" + std::to_string(random());
}

}  // namespace

class RedisAttemptLogTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RedisAttemptLogTest);
  CPPUNIT_TEST(testAttemptLeavesTheWindowExactly);
  CPPUNIT_TEST(testKeepsTheNewestOnly);
  CPPUNIT_TEST(testRecentRecordsNothing);
  CPPUNIT_TEST(testTryRecordStopsAtTheLimitAndSlides);
  CPPUNIT_TEST(testLastPlaceRaceAdmitsExactlyOne);
  CPPUNIT_TEST(testReleaseTakesBackExactlyOne);
  CPPUNIT_TEST(testInstancesShareOneLog);
  CPPUNIT_TEST(testSetExpiresWithItsWindow);
  CPPUNIT_TEST(testFailsClosedWhenRedisIsDown);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testAttemptLeavesTheWindowExactly() {
    RedisAttemptLog log(rapport::test::testRedisPool());
    const std::string key = freshKey("edge");
    log.record(key, kStart, 5, kWindow);
    const AttemptWindow second = log.record(key, kStart + 10 * kSecond, 5, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, second.count);
    CPPUNIT_ASSERT_EQUAL(kStart, second.oldestAt);
    // One microsecond before the first leaves: both count; at the edge: one.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, log.recent(key, kStart + kWindow - 1, 5, kWindow).count);
    const AttemptWindow after = log.recent(key, kStart + kWindow, 5, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, after.count);
    CPPUNIT_ASSERT_EQUAL(kStart + 10 * kSecond, after.oldestAt);
  }

  void testKeepsTheNewestOnly() {
    RedisAttemptLog log(rapport::test::testRedisPool());
    const std::string key = freshKey("keep");
    AttemptWindow w;
    for (int i = 0; i < 8; ++i) w = log.record(key, kStart + i * kSecond, 3, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, w.count);
    CPPUNIT_ASSERT_EQUAL(kStart + 5 * kSecond, w.oldestAt);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3},
                         rapport::test::redisCommand<Poco::Int64>({"ZCARD", "rapport:att:" + key}));
  }

  void testRecentRecordsNothing() {
    RedisAttemptLog log(rapport::test::testRedisPool());
    const std::string key = freshKey("recent");
    const AttemptWindow none = log.recent(key, kStart, 5, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, none.count);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, none.oldestAt);
    log.record(key, kStart, 5, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, log.recent(key, kStart + 1, 5, kWindow).count);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, log.recent(key, kStart + 2, 5, kWindow).count);
  }

  void testTryRecordStopsAtTheLimitAndSlides() {
    RedisAttemptLog log(rapport::test::testRedisPool());
    const std::string key = freshKey("try");
    for (int i = 0; i < 3; ++i) {
      const AttemptAdmission a = log.tryRecord(key, kStart + i * kSecond, 3, kWindow);
      CPPUNIT_ASSERT(a.admitted);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{i + 1}, a.window.count);
    }
    const AttemptAdmission refused = log.tryRecord(key, kStart + 30 * kSecond, 3, kWindow);
    CPPUNIT_ASSERT(!refused.admitted);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, refused.window.count);
    CPPUNIT_ASSERT_EQUAL(kStart, refused.window.oldestAt);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{30},
                         refused.window.retryAfterSeconds(kStart + 30 * kSecond, kWindow));
    // Refused attempts are not recorded: once the first leaves, one place.
    CPPUNIT_ASSERT(log.tryRecord(key, kStart + kWindow, 3, kWindow).admitted);
    CPPUNIT_ASSERT(!log.tryRecord(key, kStart + kWindow, 3, kWindow).admitted);
  }

  void testLastPlaceRaceAdmitsExactlyOne() {
    RedisAttemptLog log(rapport::test::testRedisPool());
    const std::string key = freshKey("race");
    constexpr std::int64_t kLimit = 5;
    for (int i = 0; i < kLimit - 1; ++i) {
      CPPUNIT_ASSERT(log.tryRecord(key, kStart + i, kLimit, kWindow).admitted);
    }
    constexpr int kThreads = 16;
    std::atomic<int> admitted{0};
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        ++ready;
        while (ready.load() < kThreads) std::this_thread::yield();
        // The same microsecond for all: members must still be distinct.
        if (log.tryRecord(key, kStart + kSecond, kLimit, kWindow).admitted) ++admitted;
      });
    }
    for (auto& thread : threads) thread.join();
    CPPUNIT_ASSERT_EQUAL(1, admitted.load());
    CPPUNIT_ASSERT_EQUAL(kLimit, log.recent(key, kStart + kSecond, kLimit, kWindow).count);
  }

  void testReleaseTakesBackExactlyOne() {
    RedisAttemptLog log(rapport::test::testRedisPool());
    const std::string key = freshKey("release");
    log.tryRecord(key, kStart, 5, kWindow);
    log.tryRecord(key, kStart + kSecond, 5, kWindow);
    log.tryRecord(key, kStart + kSecond, 5, kWindow);  // two in one microsecond
    log.release(key, kStart + kSecond);
    AttemptWindow w = log.recent(key, kStart + kSecond, 5, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, w.count);
    log.release(key, kStart + 2 * kSecond);  // none at that time: nothing
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, log.recent(key, kStart + kSecond, 5, kWindow).count);
    log.release(key, kStart);
    w = log.recent(key, kStart + kSecond, 5, kWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, w.count);
    CPPUNIT_ASSERT_EQUAL(kStart + kSecond, w.oldestAt);
  }

  void testInstancesShareOneLog() {
    RedisPool otherPool(rapport::host::parseRedisUrl(rapport::test::redisUrl()),
                        RedisPool::Options{});
    RedisAttemptLog first(rapport::test::testRedisPool());
    RedisAttemptLog second(otherPool);
    const std::string key = freshKey("shared");
    CPPUNIT_ASSERT(first.tryRecord(key, kStart, 2, kWindow).admitted);
    CPPUNIT_ASSERT(second.tryRecord(key, kStart + 1, 2, kWindow).admitted);
    CPPUNIT_ASSERT(!first.tryRecord(key, kStart + 2, 2, kWindow).admitted);
    second.release(key, kStart);
    CPPUNIT_ASSERT(first.tryRecord(key, kStart + 3, 2, kWindow).admitted);
  }

  void testSetExpiresWithItsWindow() {
    RedisAttemptLog log(rapport::test::testRedisPool());
    const std::string key = freshKey("expiry");
    const std::string set = "rapport:att:" + key;
    // Lives until its newest attempt leaves the window: 60 s after the
    // newest, 70 s when the newest is 10 s newer than the attempt recorded.
    log.record(key, kStart + 10 * kSecond, 5, kWindow);
    log.record(key, kStart, 5, kWindow);
    const auto ttl = rapport::test::redisCommand<Poco::Int64>({"PTTL", set});
    CPPUNIT_ASSERT_MESSAGE(std::to_string(ttl), ttl > 69'000 && ttl <= 70'001);
    // Never shortened by a later call.
    log.record(key, kStart + 10 * kSecond, 5, kWindow);
    const auto later = rapport::test::redisCommand<Poco::Int64>({"PTTL", set});
    CPPUNIT_ASSERT_MESSAGE(std::to_string(later), later > 69'000);
    // A 300 ms window: the set is gone once it has passed (bounded poll).
    const std::string shortKey = freshKey("short");
    log.record(shortKey, kStart, 5, 300'000);
    CPPUNIT_ASSERT_EQUAL(Poco::Int64{1}, rapport::test::redisCommand<Poco::Int64>(
                                             {"EXISTS", "rapport:att:" + shortKey}));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (rapport::test::redisCommand<Poco::Int64>({"EXISTS", "rapport:att:" + shortKey}) == 1 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CPPUNIT_ASSERT_EQUAL(Poco::Int64{0}, rapport::test::redisCommand<Poco::Int64>(
                                             {"EXISTS", "rapport:att:" + shortKey}));
  }

  void testFailsClosedWhenRedisIsDown() {
    RedisPool down(rapport::host::parseRedisUrl("redis://127.0.0.1:" +
                                                std::to_string(rapport::test::closedPort())),
                   RedisPool::Options{});
    RedisAttemptLog log(down);
    for (int i = 0; i < 2; ++i) {
      try {
        log.tryRecord("login:someone", kStart, 5, kWindow);
        CPPUNIT_FAIL("admitted without redis");
      } catch (const rapport::Error& e) {
        CPPUNIT_ASSERT_EQUAL(503, e.status());
        CPPUNIT_ASSERT_EQUAL(
            std::string("Service temporarily unavailable. Please try again shortly."),
            std::string(e.what()));
        CPPUNIT_ASSERT_EQUAL(std::size_t{1}, e.headers().size());
        CPPUNIT_ASSERT_EQUAL(std::string("Retry-After"), e.headers()[0].first);
        CPPUNIT_ASSERT_EQUAL(std::string("1"), e.headers()[0].second);
      }
    }
    CPPUNIT_ASSERT_THROW(log.release("login:someone", kStart), rapport::Error);
    CPPUNIT_ASSERT_THROW(log.recent("login:someone", kStart, 1, kWindow), rapport::Error);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RedisAttemptLogTest);
