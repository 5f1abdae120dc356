// MemoryRateLimitStore: fixed windows aligned to the epoch, counting,
// headers' numbers, independence of keys, bounded memory, exact counts under
// concurrency.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "ratelimit/MemoryRateLimitStore.h"

using rapport::host::MemoryRateLimitStore;
using rapport::host::RateDecision;

namespace {
// 20 s into the 60 s window [1 800 000 000, 1 800 000 060).
constexpr std::int64_t kNow = 1'800'000'020;
}  // namespace

class MemoryRateLimitStoreTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(MemoryRateLimitStoreTest);
  CPPUNIT_TEST(testCountsWithinWindow);
  CPPUNIT_TEST(testRemainingNeverNegative);
  CPPUNIT_TEST(testWindowAlignedToEpoch);
  CPPUNIT_TEST(testResetAtWindowBoundary);
  CPPUNIT_TEST(testRetryAfterAtLeastOne);
  CPPUNIT_TEST(testKeysIndependent);
  CPPUNIT_TEST(testPeekDoesNotCount);
  CPPUNIT_TEST(testEndedWindowsPurged);
  CPPUNIT_TEST(testConcurrentHitsCountExactly);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCountsWithinWindow() {
    MemoryRateLimitStore store;
    for (int i = 1; i <= 3; ++i) {
      const RateDecision d = store.hit("k", 3, 60, kNow);
      CPPUNIT_ASSERT(d.allowed);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, d.limit);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{3 - i}, d.remaining);
    }
    CPPUNIT_ASSERT(!store.hit("k", 3, 60, kNow).allowed);
  }

  void testRemainingNeverNegative() {
    MemoryRateLimitStore store;
    RateDecision d;
    for (int i = 0; i < 10; ++i) d = store.hit("k", 2, 60, kNow);
    CPPUNIT_ASSERT(!d.allowed);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, d.remaining);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, store.peek("k", 2, 60, kNow).remaining);
  }

  void testWindowAlignedToEpoch() {
    MemoryRateLimitStore store;
    const RateDecision d = store.hit("k", 5, 60, kNow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1'800'000'060}, d.resetAt);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{40}, d.retryAfter);
  }

  void testResetAtWindowBoundary() {
    MemoryRateLimitStore store;
    for (int i = 0; i < 4; ++i) store.hit("k", 3, 60, kNow);
    // Last second of the window: still over.
    CPPUNIT_ASSERT(!store.hit("k", 3, 60, 1'800'000'059).allowed);
    // First second of the next window: a fresh count and a later reset.
    const RateDecision d = store.hit("k", 3, 60, 1'800'000'060);
    CPPUNIT_ASSERT(d.allowed);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, d.remaining);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1'800'000'120}, d.resetAt);
  }

  void testRetryAfterAtLeastOne() {
    MemoryRateLimitStore store;
    store.hit("k", 1, 60, 1'800'000'059);
    const RateDecision d = store.hit("k", 1, 60, 1'800'000'059);
    CPPUNIT_ASSERT(!d.allowed);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1'800'000'060}, d.resetAt);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, d.retryAfter);
    // Even with a clock that is already past the reset (never 0 or negative).
    CPPUNIT_ASSERT(store.hit("x", 0, 60, 1'800'000'000).retryAfter >= 1);
  }

  void testKeysIndependent() {
    MemoryRateLimitStore store;
    store.hit("t:user_a:tok1", 1, 60, kNow);
    CPPUNIT_ASSERT(!store.hit("t:user_a:tok1", 1, 60, kNow).allowed);
    CPPUNIT_ASSERT(store.hit("t:user_a:tok2", 1, 60, kNow).allowed);
    CPPUNIT_ASSERT(store.hit("ip:127.0.0.1", 1, 60, kNow).allowed);
  }

  void testPeekDoesNotCount() {
    MemoryRateLimitStore store;
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, store.peek("k", 2, 60, kNow).remaining);
    CPPUNIT_ASSERT(store.peek("k", 2, 60, kNow).allowed);
    store.hit("k", 2, 60, kNow);
    store.peek("k", 2, 60, kNow);
    const RateDecision d = store.peek("k", 2, 60, kNow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, d.remaining);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1'800'000'060}, d.resetAt);
    store.hit("k", 2, 60, kNow);
    CPPUNIT_ASSERT(!store.peek("k", 2, 60, kNow).allowed);  // a hit now would be refused
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, store.size());
  }

  void testEndedWindowsPurged() {
    MemoryRateLimitStore store(1000);  // a shard purges when it holds 1000 keys
    for (int i = 0; i < 100; ++i) store.hit("old" + std::to_string(i), 5, 60, kNow);
    CPPUNIT_ASSERT_EQUAL(std::size_t{100}, store.size());
    // In the next window every shard (about 1250 new keys each) reaches its
    // threshold and drops the ended entries; the live ones stay.
    for (int i = 0; i < 20000; ++i) store.hit("new" + std::to_string(i), 5, 60, kNow + 60);
    CPPUNIT_ASSERT_EQUAL(std::size_t{20000}, store.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{4}, store.peek("new7", 5, 60, kNow + 60).remaining);
  }

  void testConcurrentHitsCountExactly() {
    MemoryRateLimitStore store;
    constexpr int kThreads = 8;
    constexpr int kHitsPerThread = 2500;
    constexpr std::int64_t kLimit = 10'000;
    std::atomic<int> allowed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kHitsPerThread; ++i) {
          if (store.hit("shared", kLimit, 60, kNow).allowed) ++allowed;
          store.hit("own" + std::to_string(i % 7), 1'000'000, 60, kNow);
        }
      });
    }
    for (auto& thread : threads) thread.join();
    // 20 000 hits against a limit of 10 000: exactly 10 000 allowed.
    CPPUNIT_ASSERT_EQUAL(static_cast<int>(kLimit), allowed.load());
    const RateDecision d = store.peek("own0", 1'000'000, 60, kNow);
    const std::int64_t own0Hits = 1'000'000 - d.remaining;
    // i % 7 == 0 for 358 of 2500 values of i, in each of 8 threads.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{358 * kThreads}, own0Hits);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(MemoryRateLimitStoreTest);
