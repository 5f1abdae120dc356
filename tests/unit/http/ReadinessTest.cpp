// CachedReadiness: /readyz asks the database at most once a second, one
// check at a time, and a failed answer is cached like a good one. Time is
// moved by hand; the concurrent cases block the check on a future instead
// of sleeping.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

#include "http/Readiness.h"

using rapport::host::CachedReadiness;
using rapport::host::kReadinessTtl;
using namespace std::chrono_literals;

class ReadinessTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ReadinessTest);
  CPPUNIT_TEST(testOneCheckPerSecond);
  CPPUNIT_TEST(testFailureIsCachedAndRecovers);
  CPPUNIT_TEST(testThrowingCheckIsNotReady);
  CPPUNIT_TEST(testNoSecondCheckWhileOneRuns);
  CPPUNIT_TEST(testFirstAnswerIsShared);
  CPPUNIT_TEST(testNoCheckIsReady);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testOneCheckPerSecond() {
    CachedReadiness readiness = make();
    for (int i = 0; i < 50; ++i) CPPUNIT_ASSERT(readiness.ready());
    CPPUNIT_ASSERT_EQUAL(1, checks_.load());
    now_ += kReadinessTtl - 1ms;
    CPPUNIT_ASSERT(readiness.ready());
    CPPUNIT_ASSERT_EQUAL(1, checks_.load());
    now_ += 1ms;
    CPPUNIT_ASSERT(readiness.ready());
    CPPUNIT_ASSERT_EQUAL(2, checks_.load());
  }

  void testFailureIsCachedAndRecovers() {
    CachedReadiness readiness = make();
    healthy_ = false;
    CPPUNIT_ASSERT(!readiness.ready());
    healthy_ = true;
    now_ += 500ms;
    CPPUNIT_ASSERT(!readiness.ready());
    CPPUNIT_ASSERT_EQUAL(1, checks_.load());
    now_ += 500ms;
    CPPUNIT_ASSERT(readiness.ready());
    CPPUNIT_ASSERT_EQUAL(2, checks_.load());
  }

  void testThrowingCheckIsNotReady() {
    int calls = 0;
    CachedReadiness readiness(
        [&calls]() -> bool {
          ++calls;
          throw std::runtime_error("database gone");
        },
        clock());
    CPPUNIT_ASSERT(!readiness.ready());
    CPPUNIT_ASSERT(!readiness.ready());
    CPPUNIT_ASSERT_EQUAL(1, calls);
  }

  // A probe that arrives while a check runs gets the last answer at once.
  void testNoSecondCheckWhileOneRuns() {
    std::promise<void> started, release;
    std::atomic<bool> block{false};
    CachedReadiness readiness(
        [&] {
          ++checks_;
          if (block) {
            started.set_value();
            release.get_future().wait();
          }
          return healthy_.load();
        },
        clock());
    CPPUNIT_ASSERT(readiness.ready());
    now_ += kReadinessTtl;
    block = true;
    healthy_ = false;
    auto slow = std::async(std::launch::async, [&] { return readiness.ready(); });
    started.get_future().wait();
    CPPUNIT_ASSERT(readiness.ready());  // the previous answer, no second check
    CPPUNIT_ASSERT_EQUAL(2, checks_.load());
    release.set_value();
    CPPUNIT_ASSERT(!slow.get());
    CPPUNIT_ASSERT(!readiness.ready());
    CPPUNIT_ASSERT_EQUAL(2, checks_.load());
  }

  // Before any answer, concurrent probes wait for the one check.
  void testFirstAnswerIsShared() {
    std::promise<void> started, release;
    std::shared_future<void> released = release.get_future().share();
    CachedReadiness readiness(
        [&] {
          ++checks_;
          started.set_value();
          released.wait();
          return true;
        },
        clock());
    auto first = std::async(std::launch::async, [&] { return readiness.ready(); });
    started.get_future().wait();
    auto second = std::async(std::launch::async, [&] { return readiness.ready(); });
    release.set_value();
    CPPUNIT_ASSERT(first.get());
    CPPUNIT_ASSERT(second.get());
    CPPUNIT_ASSERT_EQUAL(1, checks_.load());
  }

  void testNoCheckIsReady() {
    CachedReadiness readiness({}, clock());
    CPPUNIT_ASSERT(readiness.ready());
  }

 private:
  CachedReadiness make() {
    return CachedReadiness(
        [this] {
          ++checks_;
          return healthy_.load();
        },
        clock());
  }

  CachedReadiness::Clock clock() {
    return [this] { return now_; };
  }

  // Moved only while no other thread runs.
  std::chrono::steady_clock::time_point now_{};
  std::atomic<int> checks_{0};
  std::atomic<bool> healthy_{true};
};

CPPUNIT_TEST_SUITE_REGISTRATION(ReadinessTest);
