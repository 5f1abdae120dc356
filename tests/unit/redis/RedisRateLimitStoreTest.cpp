// RedisRateLimitStore against a real redis-server (fixture "redis"): the
// fixed windows of MemoryRateLimitStore (count, limit, reset, peek), one
// count shared by two stores on two pools (two instances), exact counts
// under concurrency, the key's lifetime, and RedisUnavailable when redis is down.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ratelimit/RedisRateLimitStore.h"
#include "unit/redis/TestRedis.h"

using rapport::host::RateDecision;
using rapport::host::RedisPool;
using rapport::host::RedisRateLimitStore;

namespace {

// 50 s into a 60 s window (windows start at multiples of 60 since the epoch).
constexpr std::int64_t kNow = 1'800'000'050;

// A key no other test (or earlier run) used.
std::string freshKey(const std::string& label) {
  static std::mt19937_64 random{std::random_device{}()};
  return "test:" + label + ":" + std::to_string(random());
}

}  // namespace

class RedisRateLimitStoreTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RedisRateLimitStoreTest);
  CPPUNIT_TEST(testCountsWithinWindow);
  CPPUNIT_TEST(testNextWindowStartsAfresh);
  CPPUNIT_TEST(testPeekDoesNotCount);
  CPPUNIT_TEST(testInstancesShareOneCount);
  CPPUNIT_TEST(testConcurrentHitsCountExactly);
  CPPUNIT_TEST(testKeyExpiresAfterItsWindow);
  CPPUNIT_TEST(testThrowsWhenRedisIsDown);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCountsWithinWindow() {
    RedisRateLimitStore store(rapport::test::testRedisPool());
    const std::string key = freshKey("count");
    for (int i = 1; i <= 3; ++i) {
      const RateDecision d = store.hit(key, 3, 60, kNow);
      CPPUNIT_ASSERT(d.allowed);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, d.limit);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{3 - i}, d.remaining);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{1'800'000'060}, d.resetAt);
    }
    const RateDecision refused = store.hit(key, 3, 60, kNow + 5);
    CPPUNIT_ASSERT(!refused.allowed);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, refused.remaining);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{5}, refused.retryAfter);
  }

  void testNextWindowStartsAfresh() {
    RedisRateLimitStore store(rapport::test::testRedisPool());
    const std::string key = freshKey("fresh");
    CPPUNIT_ASSERT(store.hit(key, 1, 60, kNow).allowed);
    CPPUNIT_ASSERT(!store.hit(key, 1, 60, kNow + 9).allowed);    // 1'800'000'059: same window
    const RateDecision next = store.hit(key, 1, 60, kNow + 10);  // 1'800'000'060: the next
    CPPUNIT_ASSERT(next.allowed);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1'800'000'120}, next.resetAt);
  }

  void testPeekDoesNotCount() {
    RedisRateLimitStore store(rapport::test::testRedisPool());
    const std::string key = freshKey("peek");
    CPPUNIT_ASSERT(store.peek(key, 2, 60, kNow).allowed);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, store.peek(key, 2, 60, kNow).remaining);
    store.hit(key, 2, 60, kNow);
    store.hit(key, 2, 60, kNow);
    const RateDecision full = store.peek(key, 2, 60, kNow);
    CPPUNIT_ASSERT(!full.allowed);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, full.remaining);
    CPPUNIT_ASSERT(!store.hit(key, 2, 60, kNow).allowed);
  }

  void testInstancesShareOneCount() {
    // Two pools: two rapportd with their own connections.
    RedisPool otherPool(rapport::host::parseRedisUrl(rapport::test::redisUrl()),
                        RedisPool::Options{});
    RedisRateLimitStore first(rapport::test::testRedisPool());
    RedisRateLimitStore second(otherPool);
    const std::string key = freshKey("shared");
    CPPUNIT_ASSERT(first.hit(key, 3, 60, kNow).allowed);
    CPPUNIT_ASSERT(second.hit(key, 3, 60, kNow).allowed);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, first.hit(key, 3, 60, kNow).remaining);
    CPPUNIT_ASSERT(!second.hit(key, 3, 60, kNow).allowed);
  }

  void testConcurrentHitsCountExactly() {
    RedisRateLimitStore store(rapport::test::testRedisPool());
    const std::string key = freshKey("race");
    constexpr int kThreads = 8;
    constexpr int kHits = 40;
    constexpr std::int64_t kLimit = 100;
    std::atomic<int> allowed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kHits; ++i) {
          if (store.hit(key, kLimit, 60, kNow).allowed) ++allowed;
        }
      });
    }
    for (auto& thread : threads) thread.join();
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(kLimit), allowed.load());
  }

  void testKeyExpiresAfterItsWindow() {
    RedisRateLimitStore store(rapport::test::testRedisPool());
    const std::string key = freshKey("expiry");
    store.hit(key, 5, 60, kNow);
    // 10 s left in the window, plus the second of slack.
    const std::string redisKey = "rapport:rl:" + key + ":60:1800000000";
    const auto ttl = rapport::test::redisCommand<Poco::Int64>({"PTTL", redisKey});
    CPPUNIT_ASSERT_MESSAGE(std::to_string(ttl), ttl > 9'000 && ttl <= 11'000);
  }

  // Down: the store says so (RedisUnavailable) instead of answering a fresh
  // window; the Pipeline decides (ratelimit.on_store_error).
  void testThrowsWhenRedisIsDown() {
    RedisPool down(rapport::host::parseRedisUrl("redis://127.0.0.1:" +
                                                std::to_string(rapport::test::closedPort())),
                   RedisPool::Options{});
    RedisRateLimitStore store(down);
    for (int i = 0; i < 3; ++i) {
      CPPUNIT_ASSERT_THROW(store.hit("anyone", 1, 60, kNow), rapport::host::RedisUnavailable);
      CPPUNIT_ASSERT_THROW(store.peek("anyone", 1, 60, kNow), rapport::host::RedisUnavailable);
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RedisRateLimitStoreTest);
